using System;
using System.Threading;
using System.Threading.Tasks;

namespace GameBackend
{
    /// <summary>
    /// The game backend's /api/v1 for one game: sessions with refresh, retries with idempotency keys,
    /// versions and typed errors. Make one per game (or per project) and keep it; it is safe to call from
    /// several tasks at once. Continuations and <see cref="SessionChanged"/> arrive on the
    /// synchronisation context it was made on (Unity's main thread).
    /// </summary>
    /// <example>
    /// var client = new GameClient(new GameClientOptions { BaseUrl = "https://game.example.com", ApiKey = "gb_client_…" });
    /// await client.ReadyAsync();
    /// if (client.Session == null) await client.Auth.AnonymousAsync();
    /// await client.Leaderboards.SubmitAsync("high-scores", 4200);
    /// </example>
    public sealed class GameClient : IGameClient
    {
        private readonly ClientCore core;

        public GameClient(GameClientOptions options)
            : this(new ClientCore(options), true)
        {
        }

        private GameClient(ClientCore core, bool retries)
        {
            this.core = core;
            Auth = new AuthApi(core, retries);
            Players = new PlayersApi(core, retries);
            Data = new DataApi(core, retries);
            Saves = new SavesApi(core, retries);
            Leaderboards = new LeaderboardsApi(core, retries);
            Economy = new EconomyApi(core, retries);
            Config = new ConfigApi(core, retries);
        }

        public AuthApi Auth { get; private set; }
        public PlayersApi Players { get; private set; }
        public DataApi Data { get; private set; }
        public SavesApi Saves { get; private set; }
        public LeaderboardsApi Leaderboards { get; private set; }
        public EconomyApi Economy { get; private set; }
        /// <summary>Remote config: <c>RemoteConfig config = await client.Config.GetAsync();</c></summary>
        public ConfigApi Config { get; private set; }

        /// <summary>The signed-in player, or null. Restored from the store by <see cref="ReadyAsync"/>.</summary>
        public Session Session
        {
            get { return core.Session; }
        }

        /// <summary>Raised with the new session on sign-in, refresh and sign-out (null).</summary>
        public event Action<Session> SessionChanged
        {
            add { core.SessionChanged += value; }
            remove { core.SessionChanged -= value; }
        }

        /// <summary>
        /// Raised before each retry's wait: which attempt comes, why (the error code, or NETWORK_ERROR) and
        /// after how long. On the thread the call continues on (the synchronisation context it was made on).
        /// </summary>
        public event Action<RetryEvent> Retrying
        {
            add { core.Retrying += value; }
            remove { core.Retrying -= value; }
        }

        /// <summary>
        /// A new Idempotency-Key (32 hex characters of 128 random bits) for <see cref="CallOptions.IdempotencyKey"/>.
        /// Make it before the call and keep it with what the player buys until the call answers, so a
        /// retry after a crash or a restart sends the same key and is applied at most once.
        /// </summary>
        public static string NewIdempotencyKey()
        {
            return ClientCore.NewIdempotencyKey();
        }

        IAuthApi IGameClient.Auth { get { return Auth; } }
        IPlayersApi IGameClient.Players { get { return Players; } }
        IDataApi IGameClient.Data { get { return Data; } }
        ISavesApi IGameClient.Saves { get { return Saves; } }
        ILeaderboardsApi IGameClient.Leaderboards { get { return Leaderboards; } }
        IEconomyApi IGameClient.Economy { get { return Economy; } }
        IConfigApi IGameClient.Config { get { return Config; } }

        IGameClient IGameClient.WithoutRetries()
        {
            return WithoutRetries();
        }

        /// <summary>Completes once the stored session is restored (every call waits for it too).</summary>
        public Task ReadyAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return core.ReadyAsync(cancellationToken);
        }

        /// <summary>
        /// The same client (session, store, events) whose calls are sent once: no retry after a network
        /// error, a 429 or a 503. <c>client.WithoutRetries().Economy.PurchaseAsync("buy-potion")</c>.
        /// </summary>
        public GameClient WithoutRetries()
        {
            return new GameClient(core, false);
        }
    }
}

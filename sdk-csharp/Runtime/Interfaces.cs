using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace GameBackend
{
    // One interface per API group, and IGameClient over them: a game's own tests can fake the backend
    // (a class of theirs implementing IEconomyApi, say) while the game codes against the interfaces.
    // GameClient and its API objects implement them; their members are documented there.

    /// <summary>What <see cref="GameClient"/> offers, for fakes in a game's tests.</summary>
    public interface IGameClient
    {
        IAuthApi Auth { get; }
        IPlayersApi Players { get; }
        IDataApi Data { get; }
        ISavesApi Saves { get; }
        ILeaderboardsApi Leaderboards { get; }
        IEconomyApi Economy { get; }
        IConfigApi Config { get; }
        Session Session { get; }
        event Action<Session> SessionChanged;
        event Action<RetryEvent> Retrying;
        Task ReadyAsync(CancellationToken cancellationToken = default(CancellationToken));
        IGameClient WithoutRetries();
    }


    /// <summary>What <see cref="AuthApi"/> offers.</summary>
    public interface IAuthApi
    {
        Task<Session> AnonymousAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task ForgetDeviceAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<Session> RegisterAsync(string email, string password, string displayName = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<Session> LoginAsync(string email, string password, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<Session> IdpAsync(string provider, string token, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<Session> RefreshAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task LogoutAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task RequestPasswordResetAsync(string email, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<Session> ConfirmPasswordResetAsync(string email, string code, string newPassword, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<PlayerProfile> VerifyEmailAsync(string code, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task ResendVerificationAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="PlayersApi"/> offers.</summary>
    public interface IPlayersApi
    {
        Task<PlayerProfile> MeAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<PlayerProfile> UpdateAsync(string displayName, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<PlayerProfile> GetAsync(string playerId, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task DeleteAccountAsync(string password = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<PlayerExport> ExportAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<ReportAccepted> ReportAsync(string playerId, string reason, string note = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="DataApi"/> offers.</summary>
    public interface IDataApi
    {
        Task<DataRecord> GetAsync(string key, string playerId = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<List<DataRecord>> ListAsync(string playerId = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<DataRecord> SetAsync(string key, string valueJson, DataSetOptions options = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task DeleteAsync(string key, long? ifVersion = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<List<DataRecord>> BatchAsync(DataBatch batch, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="SavesApi"/> offers.</summary>
    public interface ISavesApi
    {
        Task<List<SaveRecord>> ListAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<SaveRecord> GetAsync(string key, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<SaveRecord> PutAsync(string key, string dataJson, SavePutOptions options = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task DeleteAsync(string key, long? ifVersion = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="LeaderboardsApi"/> offers.</summary>
    public interface ILeaderboardsApi
    {
        Task<LeaderboardEntry> SubmitAsync(string boardId, double score, string metadataJson = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<LeaderboardPage> PageAsync(string boardId, int offset = 0, int limit = 25, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<LeaderboardEntry> MeAsync(string boardId, int range = 0, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="EconomyApi"/> offers.</summary>
    public interface IEconomyApi
    {
        Task<List<CurrencyBalance>> CurrenciesAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<CurrencyChange> AddAsync(string currencyId, long amount, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<CurrencyChange> SubtractAsync(string currencyId, long amount, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<PurchaseResult> PurchaseAsync(string purchaseId, int quantity = 1, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<ReceiptResult> ValidateReceiptAsync(Receipt receipt, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<SteamOrder> StartSteamOrderAsync(string productId, string steamId, string language = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<List<InventoryEntry>> InventoryAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        Task<EconomyTransactionPage> TransactionsAsync(string cursor = null, int limit = 25, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
    }

    /// <summary>What <see cref="ConfigApi"/> offers.</summary>
    public interface IConfigApi
    {
        Task<RemoteConfig> GetAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null);
        RemoteConfig Last { get; }
    }
}

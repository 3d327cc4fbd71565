using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;

namespace GameBackend
{
    public sealed partial class RemoteConfig
    {
        /// <summary>
        /// True when the server could not be reached and these are the values kept from its last answer
        /// to this player (in the session store); false for the server's answer (200 or 304).
        /// </summary>
        public bool Stale { get; internal set; }

        /// <summary>The key's raw JSON value ("15", "\"text\"", "{…}"), or null when the key is unknown.</summary>
        public string Raw(string key)
        {
            string raw;
            return key != null && Values != null && Values.TryGetValue(key, out raw) ? raw : null;
        }

        /// <summary>The key's string value, or <paramref name="fallback"/> when unknown or not a string.</summary>
        public string GetString(string key, string fallback = null)
        {
            JsonNode node = Node(key);
            return node != null && node.Kind == JsonKind.String ? node.AsString() : fallback;
        }

        /// <summary>The key's number value, or <paramref name="fallback"/> when unknown or not a number.</summary>
        public double GetNumber(string key, double fallback)
        {
            JsonNode node = Node(key);
            return node != null && node.Kind == JsonKind.Number ? node.AsDouble() : fallback;
        }

        /// <summary>The key's number value as an int, or <paramref name="fallback"/> when unknown, not a number or not a whole int.</summary>
        public int GetInt(string key, int fallback)
        {
            JsonNode node = Node(key);
            if (node == null || node.Kind != JsonKind.Number) return fallback;
            double value = node.AsDouble();
            return value >= int.MinValue && value <= int.MaxValue && Math.Floor(value) == value ? (int)value : fallback;
        }

        /// <summary>The key's boolean value, or <paramref name="fallback"/> when unknown or not a boolean.</summary>
        public bool GetBool(string key, bool fallback)
        {
            JsonNode node = Node(key);
            return node != null && node.Kind == JsonKind.Boolean ? node.AsBool() : fallback;
        }

        private JsonNode Node(string key)
        {
            string raw = Raw(key);
            if (raw == null) return null;
            try
            {
                return JsonNode.Parse(raw);
            }
            catch (JsonException)
            {
                return null;
            }
        }
    }

    /// <summary>The config last answered to a player, as kept in the store: {"playerId","etag","config": the answer}.</summary>
    internal sealed class KeptConfig
    {
        public readonly string PlayerId;
        public readonly string ETag;
        public readonly JsonNode Config;
        /// <summary>In memory only: whether GetAsync answered these values as stale.</summary>
        public readonly bool Stale;

        public KeptConfig(string playerId, string etag, JsonNode config, bool stale = false)
        {
            PlayerId = playerId;
            ETag = etag;
            Config = config;
            Stale = stale;
        }

        public RemoteConfig Read(bool stale)
        {
            RemoteConfig config = RemoteConfig.FromJson(Config);
            config.Stale = stale;
            return config;
        }

        public string ToJson()
        {
            return JsonNode.NewObject()
                .Set("playerId", JsonNode.From(PlayerId))
                .Set("etag", ETag == null ? JsonNode.Null : JsonNode.From(ETag))
                .Set("config", Config)
                .ToJson();
        }

        /// <summary>What the store holds, or null when it is not a kept config (another format, a torn write).</summary>
        public static KeptConfig FromJson(string stored)
        {
            if (string.IsNullOrEmpty(stored)) return null;
            try
            {
                JsonNode node = JsonNode.Parse(stored);
                if (node.Kind != JsonKind.Object) return null;
                JsonNode player = node["playerId"], etag = node["etag"], config = node["config"];
                if (player == null || player.Kind != JsonKind.String || config == null || config.Kind != JsonKind.Object) return null;
                KeptConfig kept = new KeptConfig(player.AsString(), etag != null && etag.Kind == JsonKind.String ? etag.AsString() : null, config);
                kept.Read(false);
                return kept;
            }
            catch (Exception)
            {
                return null;
            }
        }
    }

    /// <summary>Remote config: the values the project's operators set for this player (GET /config).</summary>
    public sealed class ConfigApi : ApiBase, IConfigApi
    {
        internal const string StoreName = "config";

        internal ConfigApi(ClientCore core, bool retries) : base(core, retries) { }

        /// <summary>
        /// The signed-in player's config, resolved by the server: Values (key → raw JSON; read them with
        /// GetString, GetNumber, GetInt, GetBool), Assignments (experiment id → variant id) and Version.
        /// Cheap enough for every start and resume: the SDK sends the last answer's ETag (If-None-Match)
        /// and a 304 answers the kept values without a body. The last answer is kept in the session store
        /// (under SessionKey + ".config", per player), so when the server cannot be reached (a network
        /// error, or a 5xx after the retries) this answers those values with Stale = true; with nothing
        /// kept it throws as any call does.
        /// </summary>
        public async Task<RemoteConfig> GetAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            CallContext context = Begin(call);
            await Core.ReadyAsync(cancellationToken);
            Session session = Core.Session;
            string playerId = session != null ? session.PlayerId : null;
            KeptConfig known = Core.LastConfig;
            if (known == null || known.PlayerId != playerId)
            {
                known = KeptConfig.FromJson(await Core.KeptAsync(StoreName));
                if (known != null && known.PlayerId != playerId) known = null;
            }
            Dictionary<string, string> headers = known != null && known.ETag != null
                ? new Dictionary<string, string> { { "If-None-Match", known.ETag } }
                : null;
            Answer answer = null;
            try
            {
                answer = await Send("GET", "/config", null, AuthMode.Player, true, context, cancellationToken, headers);
            }
            catch (GameApiException error)
            {
                bool unreachable = error.Code == ErrorCodes.NetworkError || error.Status >= 500;
                if (known == null || !unreachable) throw;
            }
            if (answer == null || (answer.Status == 304 && known != null))
            {
                bool stale = answer == null;
                Core.LastConfig = new KeptConfig(known.PlayerId, known.ETag, known.Config, stale);
                return known.Read(stale);
            }
            RemoteConfig fresh = AnswerReader.Read(answer, RemoteConfig.FromJson);
            if (playerId != null)
            {
                KeptConfig kept = new KeptConfig(playerId, answer.ETag, answer.Body);
                Core.LastConfig = kept;
                await Core.KeepAsync(StoreName, kept.ToJson());
            }
            return fresh;
        }

        /// <summary>
        /// The config GetAsync answered last (fresh or stale) to the signed-in player, or null before the
        /// first GetAsync of this process: <c>client.Config.Last?.GetInt("lives", 3) ?? 3</c>.
        /// </summary>
        public RemoteConfig Last
        {
            get
            {
                KeptConfig kept = Core.LastConfig;
                Session session = Core.Session;
                if (kept == null || session == null || kept.PlayerId != session.PlayerId) return null;
                return kept.Read(kept.Stale);
            }
        }
    }
}

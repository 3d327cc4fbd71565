using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using System.Threading.Tasks;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>A signed-in player as the SDK keeps it. Immutable: a refresh makes a new one.</summary>
    public sealed class Session
    {
        public string PlayerId { get; private set; }
        public string AccessToken { get; private set; }
        public string RefreshToken { get; private set; }
        /// <summary>When the access token expires (the SDK refreshes it before).</summary>
        public DateTimeOffset ExpiresAt { get; private set; }

        public Session(string playerId, string accessToken, string refreshToken, DateTimeOffset expiresAt)
        {
            PlayerId = playerId;
            AccessToken = accessToken;
            RefreshToken = refreshToken;
            ExpiresAt = expiresAt;
        }

        /// <summary>The stored form, the TypeScript SDK's: {"playerId","accessToken","refreshToken","expiresAt": epoch ms}.</summary>
        public string ToJson()
        {
            return JsonNode.NewObject()
                .Set("playerId", JsonNode.From(PlayerId))
                .Set("accessToken", JsonNode.From(AccessToken))
                .Set("refreshToken", JsonNode.From(RefreshToken))
                .Set("expiresAt", JsonNode.From(ExpiresAt.ToUnixTimeMilliseconds()))
                .ToJson();
        }

        /// <summary>A stored value that is not a session (another app's key, an old format, a torn write) reads as null.</summary>
        public static Session FromJson(string stored)
        {
            if (string.IsNullOrEmpty(stored)) return null;
            try
            {
                JsonNode node = JsonNode.Parse(stored);
                if (node.Kind != JsonKind.Object) return null;
                JsonNode playerId = node["playerId"], access = node["accessToken"], refresh = node["refreshToken"], expires = node["expiresAt"];
                if (playerId == null || playerId.Kind != JsonKind.String || access == null || access.Kind != JsonKind.String
                    || refresh == null || refresh.Kind != JsonKind.String || expires == null || expires.Kind != JsonKind.Number)
                {
                    return null;
                }
                long ms = (long)expires.AsDouble();
                return new Session(playerId.AsString(), access.AsString(), refresh.AsString(), DateTimeOffset.FromUnixTimeMilliseconds(ms));
            }
            catch (Exception)
            {
                return null;
            }
        }
    }

    /// <summary>
    /// Where the session (and the device secret, under SessionKey + ".device") is kept. Calls arrive on
    /// the client's synchronisation context (Unity's main thread), one key at a time.
    /// </summary>
    public interface ISessionStore
    {
        /// <summary>The stored value, or null.</summary>
        Task<string> GetAsync(string key);
        Task SetAsync(string key, string value);
        Task RemoveAsync(string key);
    }

    /// <summary>Keeps the session for this process only.</summary>
    public sealed class MemorySessionStore : ISessionStore
    {
        private readonly Dictionary<string, string> items = new Dictionary<string, string>();

        public Task<string> GetAsync(string key)
        {
            lock (items)
            {
                string value;
                return Task.FromResult(items.TryGetValue(key, out value) ? value : null);
            }
        }

        public Task SetAsync(string key, string value)
        {
            lock (items) items[key] = value;
            return Task.FromResult(0);
        }

        public Task RemoveAsync(string key)
        {
            lock (items) items.Remove(key);
            return Task.FromResult(0);
        }
    }

    /// <summary>
    /// Keeps every key in one JSON file (desktop games, tools, servers, tests). Each write replaces the
    /// file whole (written beside it, then renamed over it), so a crash leaves the old or the new file,
    /// never half of one. The file holds refresh tokens: keep it in the user's own data folder.
    /// </summary>
    public sealed class FileSessionStore : ISessionStore
    {
        private readonly string path;
        private readonly object gate = new object();

        public FileSessionStore(string path)
        {
            if (string.IsNullOrEmpty(path)) throw new ArgumentException("A file path is needed.", "path");
            this.path = Path.GetFullPath(path);
        }

        public string FilePath { get { return path; } }

        public Task<string> GetAsync(string key)
        {
            lock (gate)
            {
                JsonNode all = Read();
                JsonNode value = all[key];
                return Task.FromResult(value != null && value.Kind == JsonKind.String ? value.AsString() : null);
            }
        }

        public Task SetAsync(string key, string value)
        {
            lock (gate)
            {
                JsonNode all = Read();
                all.Set(key, JsonNode.From(value));
                Write(all);
            }
            return Task.FromResult(0);
        }

        public Task RemoveAsync(string key)
        {
            lock (gate)
            {
                JsonNode all = Read();
                if (all[key] == null) return Task.FromResult(0);
                JsonNode rest = JsonNode.NewObject();
                foreach (KeyValuePair<string, JsonNode> member in all.Members)
                {
                    if (member.Key != key) rest.Set(member.Key, member.Value);
                }
                Write(rest);
            }
            return Task.FromResult(0);
        }

        /// <summary>The file's object; a missing, empty or unreadable file reads as empty (a corrupt file is not fatal: the player signs in again).</summary>
        private JsonNode Read()
        {
            try
            {
                if (!File.Exists(path)) return JsonNode.NewObject();
                JsonNode node = JsonNode.Parse(File.ReadAllText(path, Encoding.UTF8));
                return node.Kind == JsonKind.Object ? node : JsonNode.NewObject();
            }
            catch (JsonException)
            {
                return JsonNode.NewObject();
            }
        }

        private void Write(JsonNode all)
        {
            string directory = Path.GetDirectoryName(path);
            if (!string.IsNullOrEmpty(directory)) Directory.CreateDirectory(directory);
            string temporary = path + "." + Guid.NewGuid().ToString("N").Substring(0, 8) + ".tmp";
            File.WriteAllText(temporary, all.ToJson(), new UTF8Encoding(false));
            if (File.Exists(path)) File.Replace(temporary, path, null);
            else File.Move(temporary, path);
        }
    }

    /// <summary>This device's anonymous credential and the player it signed in last.</summary>
    internal sealed class DeviceCredential
    {
        public readonly string Secret;
        public readonly string PlayerId;

        public DeviceCredential(string secret, string playerId)
        {
            Secret = secret;
            PlayerId = playerId;
        }

        public string ToJson()
        {
            return JsonNode.NewObject().Set("secret", JsonNode.From(Secret)).Set("playerId", JsonNode.From(PlayerId)).ToJson();
        }

        public static DeviceCredential FromJson(string stored)
        {
            if (string.IsNullOrEmpty(stored)) return null;
            try
            {
                JsonNode node = JsonNode.Parse(stored);
                JsonNode secret = node.Kind == JsonKind.Object ? node["secret"] : null;
                if (secret == null || secret.Kind != JsonKind.String) return null;
                JsonNode player = node["playerId"];
                return new DeviceCredential(secret.AsString(), player != null && player.Kind == JsonKind.String ? player.AsString() : null);
            }
            catch (JsonException)
            {
                return null;
            }
        }
    }
}

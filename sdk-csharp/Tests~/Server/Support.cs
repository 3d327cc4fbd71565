using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;
using NUnit.Framework;

// What the real-server cases share: the environment the harness (Tests~/csharp.test.ts) sets,
// the fixture server's calls, a recording transport, and synchronous runners (NUnit 2.6 has no async tests).
namespace GameBackend.Tests
{
    /// <summary>GB_BASE_URL (the app under test) and GB_FIXTURES_URL (the harness's fixture server).</summary>
    public static class TestEnv
    {
        public static string BaseUrl { get { return Required("GB_BASE_URL"); } }
        public static string FixturesUrl { get { return Required("GB_FIXTURES_URL"); } }

        static string Required(string name)
        {
            string value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value)) Assert.Fail(name + " is not set: run this suite through sdk-csharp/Tests~/csharp.test.ts");
            return value.TrimEnd('/');
        }
    }

    /// <summary>Async work run to completion on a pool thread (no synchronisation context to deadlock on).</summary>
    public static class Sync
    {
        public static void Run(Func<Task> work)
        {
            Task.Run(work).GetAwaiter().GetResult();
        }

        public static T Run<T>(Func<Task<T>> work)
        {
            return Task.Run(work).GetAwaiter().GetResult();
        }

        /// <summary>The exception the work ends with; fails the test when it succeeds or throws another type.</summary>
        public static TException Throws<TException>(Func<Task> work) where TException : Exception
        {
            try
            {
                Run(work);
            }
            catch (TException expected)
            {
                return expected;
            }
            catch (Exception other)
            {
                Assert.Fail("expected " + typeof(TException).Name + ", got " + other.GetType().Name + ": " + other);
            }
            Assert.Fail("expected " + typeof(TException).Name + ", the call succeeded");
            return null;
        }

        /// <summary>A GameApiException with this status and code.</summary>
        public static GameApiException ThrowsApi(int status, string code, Func<Task> work)
        {
            GameApiException error = Throws<GameApiException>(work);
            Assert.AreEqual(code, error.Code, "code of " + Describe(error));
            Assert.AreEqual(status, error.Status, "status of " + Describe(error));
            return error;
        }

        public static string Describe(GameApiException e)
        {
            return e.GetType().Name + " " + e.Status.ToString(CultureInfo.InvariantCulture) + " " + e.Code + " " + e.DetailsJson + ": " + e.Message;
        }
    }

    public static class TestClock
    {
        static readonly Stopwatch watch = Stopwatch.StartNew();

        /// <summary>Monotonic milliseconds since the suite started (for intervals between exchanges).</summary>
        public static double NowMs { get { return watch.Elapsed.TotalMilliseconds; } }

        public static long EpochMs(DateTimeOffset at)
        {
            return (long)(at.UtcDateTime - new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc)).TotalMilliseconds;
        }
    }

    /// <summary>One request the SDK made and what came of it.</summary>
    public sealed class Exchange
    {
        public string Method;
        public string Url;
        /// <summary>The URL's path, percent-encoding kept, e.g. "/api/v1/economy/purchase".</summary>
        public string Path;
        /// <summary>0: no answer (the transport threw).</summary>
        public int Status;
        public Dictionary<string, string> RequestHeaders;
        public string IdempotencyKey;
        public string RetryAfter;
        /// <summary>The answer's ETag header, or null.</summary>
        public string ETag;
        public string Failure;
        public double StartedMs;
        public double EndedMs;

        public override string ToString()
        {
            return Status.ToString(CultureInfo.InvariantCulture) + " " + Method + " " + Path;
        }
    }

    /// <summary>
    /// An IHttpTransport that records every exchange (method, path, status, Idempotency-Key,
    /// Retry-After, timing, request headers); the requests still go to the real server.
    /// </summary>
    public sealed class RecordingTransport : IHttpTransport
    {
        readonly IHttpTransport inner;
        readonly List<Exchange> log = new List<Exchange>();

        public RecordingTransport() : this(new HttpClientTransport()) { }

        public RecordingTransport(IHttpTransport inner)
        {
            this.inner = inner;
        }

        /// <summary>A snapshot of the exchanges so far, in the order they ended.</summary>
        public List<Exchange> Log
        {
            get { lock (log) return new List<Exchange>(log); }
        }

        public List<Exchange> To(string pathSuffix)
        {
            return Log.Where(e => e.Path.EndsWith(pathSuffix, StringComparison.Ordinal)).ToList();
        }

        /// <summary>"status path" lines, e.g. "401 /api/v1/players/me".</summary>
        public List<string> Lines()
        {
            return Log.Select(e => e.Status.ToString(CultureInfo.InvariantCulture) + " " + e.Path).ToList();
        }

        /// <summary>The path of a URL as written (System.Uri may unescape %2F on some runtimes).</summary>
        public static string PathOf(string url)
        {
            int scheme = url.IndexOf("://", StringComparison.Ordinal);
            int start = url.IndexOf('/', scheme < 0 ? 0 : scheme + 3);
            if (start < 0) return "/";
            int end = url.IndexOfAny(new[] { '?', '#' }, start);
            return end < 0 ? url.Substring(start) : url.Substring(start, end - start);
        }

        public async Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            if (request.Headers != null) foreach (var pair in request.Headers) headers[pair.Key] = pair.Value;
            string key;
            headers.TryGetValue("Idempotency-Key", out key);
            var entry = new Exchange
            {
                Method = request.Method,
                Url = request.Url,
                Path = PathOf(request.Url),
                RequestHeaders = headers,
                IdempotencyKey = key,
                StartedMs = TestClock.NowMs,
            };
            try
            {
                ApiResponse response = await inner.SendAsync(request, timeout, cancellationToken);
                entry.Status = response.Status;
                string retryAfter = null;
                if (response.Headers != null) response.Headers.TryGetValue("retry-after", out retryAfter);
                entry.RetryAfter = retryAfter;
                string etag = null;
                if (response.Headers != null) response.Headers.TryGetValue("etag", out etag);
                entry.ETag = etag;
                return response;
            }
            catch (Exception e)
            {
                entry.Failure = e.GetType().Name + ": " + e.Message;
                throw;
            }
            finally
            {
                entry.EndedMs = TestClock.NowMs;
                lock (log) log.Add(entry);
            }
        }
    }

    /// <summary>
    /// The real server's answers, with those to paths ending in a suffix held back until the test
    /// releases them (a slow network, without a fixed sleep).
    /// </summary>
    public sealed class HoldingTransport : IHttpTransport
    {
        readonly IHttpTransport inner;
        readonly string suffix;
        readonly TaskCompletionSource<bool> reached = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        readonly TaskCompletionSource<bool> gate = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        public HoldingTransport(string suffix) : this(new HttpClientTransport(), suffix) { }

        public HoldingTransport(IHttpTransport inner, string suffix)
        {
            this.inner = inner;
            this.suffix = suffix;
        }

        /// <summary>Blocks until an answer is being held (fails the test after two minutes).</summary>
        public void WaitUntilHolding()
        {
            if (!reached.Task.Wait(TimeSpan.FromMinutes(2))) Assert.Fail("no request to *" + suffix + " was made");
        }

        public void Release()
        {
            gate.TrySetResult(true);
        }

        public async Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            ApiResponse response = await inner.SendAsync(request, timeout, cancellationToken);
            if (RecordingTransport.PathOf(request.Url).EndsWith(suffix, StringComparison.Ordinal))
            {
                reached.TrySetResult(true);
                // As a real transport: a cancelled call stops waiting with OperationCanceledException.
                await Task.WhenAny(gate.Task, Task.Delay(Timeout.Infinite, cancellationToken));
                cancellationToken.ThrowIfCancellationRequested();
            }
            return response;
        }
    }

    /// <summary>A store whose reads wait until the test opens it (a slow disk, AsyncStorage, PlayerPrefs on a busy frame).</summary>
    public sealed class GatedStore : ISessionStore
    {
        readonly ISessionStore inner;
        readonly TaskCompletionSource<bool> gate = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        public GatedStore(ISessionStore inner)
        {
            this.inner = inner;
        }

        public void Open()
        {
            gate.TrySetResult(true);
        }

        public async Task<string> GetAsync(string key)
        {
            await gate.Task;
            return await inner.GetAsync(key);
        }

        public Task SetAsync(string key, string value)
        {
            return inner.SetAsync(key, value);
        }

        public Task RemoveAsync(string key)
        {
            return inner.RemoveAsync(key);
        }
    }

    /// <summary>Answers every request with a captive portal's sign-in page (200, text/html).</summary>
    public sealed class CaptivePortalTransport : IHttpTransport
    {
        public Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            var headers = new Dictionary<string, string>();
            headers["content-type"] = "text/html";
            return Task.FromResult(new ApiResponse { Status = 200, Headers = headers, Body = "<html>Sign in to the Wi-Fi</html>" });
        }
    }

    /// <summary>A project the fixture server made (gameProject() of the TypeScript SDK's tests).</summary>
    public sealed class TestProject
    {
        public string ProjectId;
        public string ClientKey;
        /// <summary>The project's server key (gb_server_…), which a game client must refuse.</summary>
        public string ServerKey;
        /// <summary>The app this project is served by (a dedicated app for shortWindow projects).</summary>
        public string BaseUrl;
    }

    /// <summary>A TCP proxy in front of the app that can drop the next answers.</summary>
    public sealed class TestProxy
    {
        public int Port;
        public string BaseUrl;

        /// <summary>Closes the proxy: from now on its BaseUrl refuses connections (the server is unreachable).</summary>
        public void Close()
        {
            Fixtures.Delete("/proxies/" + Port.ToString(CultureInfo.InvariantCulture));
        }

        /// <summary>The next <paramref name="count"/> answers are lost (the app has done the work).</summary>
        public void DropNextAnswers(int count)
        {
            Fixtures.Post("/proxies/" + Port.ToString(CultureInfo.InvariantCulture) + "/drop", JsonNode.NewObject().Set("count", JsonNode.From((long)count)));
        }
    }

    /// <summary>The harness's fixture server (protocol at the top of Tests~/support/fixtures.ts).</summary>
    public static class Fixtures
    {
        // Generous: a shortWindow project starts a dedicated app on first use.
        static readonly HttpClient http = new HttpClient { Timeout = TimeSpan.FromMinutes(5) };

        public const string Password = "a long and unusual passphrase";
        public const string SessionKey = "game-backend.session";
        public const string DeviceKey = "game-backend.session.device";

        public static JsonNode Post(string path, JsonNode body)
        {
            return Send(HttpMethod.Post, path, body);
        }

        public static JsonNode Get(string path)
        {
            return Send(HttpMethod.Get, path, null);
        }

        public static JsonNode Delete(string path)
        {
            return Send(HttpMethod.Delete, path, null);
        }

        /// <summary>A remote config key of the project with its default value (raw JSON), before any player reads the config.</summary>
        public static void ConfigKey(TestProject project, string key, string type, string valueJson)
        {
            Post("/config/keys", JsonNode.NewObject()
                .Set("projectId", JsonNode.From(project.ProjectId))
                .Set("key", JsonNode.From(key))
                .Set("type", JsonNode.From(type))
                .Set("value", JsonNode.Parse(valueJson)));
        }

        /// <summary>How many reports the reporter filed against the target.</summary>
        public static long Reports(TestProject project, string reporterId, string targetId)
        {
            JsonNode answer = Get("/reports?projectId=" + Uri.EscapeDataString(project.ProjectId) + "&reporterId=" + Uri.EscapeDataString(reporterId)
                + "&targetId=" + Uri.EscapeDataString(targetId));
            return answer["count"].AsLong();
        }

        static JsonNode Send(HttpMethod method, string path, JsonNode body)
        {
            var request = new HttpRequestMessage(method, TestEnv.FixturesUrl + path);
            if (body != null) request.Content = new StringContent(body.ToJson(), Encoding.UTF8, "application/json");
            HttpResponseMessage response = Sync.Run(() => http.SendAsync(request));
            string text = Sync.Run(() => response.Content.ReadAsStringAsync());
            if (!response.IsSuccessStatusCode)
            {
                Assert.Fail("fixture server: " + method + " " + path + " answered " + (int)response.StatusCode + ": " + text);
            }
            return string.IsNullOrEmpty(text) ? JsonNode.Null : JsonNode.Parse(text);
        }

        /// <summary>A fresh project: board "high", currency "coins" (100, client-writable), item "potion", purchase "buy-potion" (10 coins).</summary>
        public static TestProject Project(int? customRateLimit = null, bool shortWindow = false)
        {
            JsonNode body = JsonNode.NewObject();
            if (customRateLimit.HasValue) body.Set("customRateLimit", JsonNode.From((long)customRateLimit.Value));
            if (shortWindow) body.Set("shortWindow", JsonNode.From(true));
            JsonNode made = Post("/projects", body);
            return new TestProject
            {
                ProjectId = made["projectId"].AsString(),
                ClientKey = made["clientKey"].AsString(),
                ServerKey = made["serverKey"] != null ? made["serverKey"].AsString() : null,
                BaseUrl = made["baseUrl"].AsString().TrimEnd('/'),
            };
        }

        /// <summary>An access token of this session that the server considers expired.</summary>
        public static string ExpiredAccessToken(TestProject project, Session session)
        {
            JsonNode body = JsonNode.NewObject()
                .Set("projectId", JsonNode.From(project.ProjectId))
                .Set("playerId", JsonNode.From(session.PlayerId))
                .Set("accessToken", JsonNode.From(session.AccessToken));
            return Post("/tokens/expired", body)["accessToken"].AsString();
        }

        /// <summary>The kinds of the player's ledger rows in the database ("PURCHASE", "ADD", …).</summary>
        public static List<string> LedgerKinds(TestProject project, string playerId)
        {
            JsonNode answer = Get("/ledger?projectId=" + Uri.EscapeDataString(project.ProjectId) + "&playerId=" + Uri.EscapeDataString(playerId));
            return answer["kinds"].Items.Select(k => k.AsString()).ToList();
        }

        /// <summary>The project sells "gems-500" (500 gems) and "vip" on the App Store (the suite's test app).</summary>
        public static void SellOnApple(TestProject project)
        {
            Post("/stores/apple", JsonNode.NewObject().Set("projectId", JsonNode.From(project.ProjectId)));
        }

        /// <summary>A new StoreKit 2 signed transaction of the test app, signed by the suite's test PKI; its transactionId is <paramref name="transactionId"/>.</summary>
        public static string AppleReceipt(out string transactionId, string productId = "com.example.game.gems500")
        {
            JsonNode made = Post("/receipts/apple", JsonNode.NewObject().Set("productId", JsonNode.From(productId)));
            transactionId = made["transactionId"].AsString();
            return made["signedTransaction"].AsString();
        }

        /// <summary>How many STORE_PURCHASE rows the player's ledger holds.</summary>
        public static long StorePurchases(TestProject project, string playerId)
        {
            JsonNode answer = Get("/store-purchases?projectId=" + Uri.EscapeDataString(project.ProjectId) + "&playerId=" + Uri.EscapeDataString(playerId));
            return answer["count"].AsLong();
        }

        public static TestProxy Proxy()
        {
            JsonNode made = Post("/proxies", JsonNode.NewObject());
            return new TestProxy { Port = (int)made["port"].AsLong(), BaseUrl = made["baseUrl"].AsString().TrimEnd('/') };
        }

        /// <summary>Every session of the player ended server-side (as an operator would).</summary>
        public static void RevokeSessions(TestProject project, string playerId)
        {
            Post("/sessions/revoke", JsonNode.NewObject().Set("projectId", JsonNode.From(project.ProjectId)).Set("playerId", JsonNode.From(playerId)));
        }

        public static string UniqueEmail(string prefix)
        {
            return prefix + "-" + Guid.NewGuid().ToString("N") + "@example.com";
        }

        /// <summary>Options for a client of the project: its app, its client key, a fresh memory store.</summary>
        public static GameClientOptions Options(TestProject project)
        {
            return new GameClientOptions { BaseUrl = project.BaseUrl, ApiKey = project.ClientKey, SessionStore = new MemorySessionStore() };
        }

        public static GameClient Client(TestProject project, Action<GameClientOptions> configure = null)
        {
            GameClientOptions options = Options(project);
            if (configure != null) configure(options);
            return new GameClient(options);
        }
    }

    /// <summary>Reading and rewriting what a session store holds, as a copied file or a clock would change it.</summary>
    public static class Stores
    {
        public static JsonNode StoredSession(ISessionStore store)
        {
            string raw = Sync.Run(() => store.GetAsync(Fixtures.SessionKey));
            return raw == null ? null : JsonNode.Parse(raw);
        }

        /// <summary>The stored session with other fields (expiresAt in epoch ms, accessToken, …).</summary>
        public static void Rewrite(ISessionStore store, string field, JsonNode value)
        {
            JsonNode session = StoredSession(store);
            Assert.IsNotNull(session, "no stored session to rewrite");
            session.Set(field, value);
            Sync.Run(() => store.SetAsync(Fixtures.SessionKey, session.ToJson()));
        }

        /// <summary>The stored access token believed expired since a second ago.</summary>
        public static void ExpireLocally(ISessionStore store)
        {
            Rewrite(store, "expiresAt", JsonNode.From(TestClock.EpochMs(DateTimeOffset.UtcNow) - 1000));
        }

        /// <summary>The session and the device secret, copied as a backup or a cloud-synced file would carry them.</summary>
        public static MemorySessionStore Copy(ISessionStore from)
        {
            var to = new MemorySessionStore();
            foreach (string key in new[] { Fixtures.SessionKey, Fixtures.DeviceKey })
            {
                string value = Sync.Run(() => from.GetAsync(key));
                if (value != null) Sync.Run(() => to.SetAsync(key, value));
            }
            return to;
        }

        /// <summary>A store holding exactly this session (in the TypeScript SDK's format).</summary>
        public static MemorySessionStore Holding(Session session)
        {
            var store = new MemorySessionStore();
            JsonNode json = JsonNode.NewObject()
                .Set("playerId", JsonNode.From(session.PlayerId))
                .Set("accessToken", JsonNode.From(session.AccessToken))
                .Set("refreshToken", JsonNode.From(session.RefreshToken))
                .Set("expiresAt", JsonNode.From(TestClock.EpochMs(session.ExpiresAt)));
            Sync.Run(() => store.SetAsync(Fixtures.SessionKey, json.ToJson()));
            return store;
        }
    }

    public static class RawJson
    {
        /// <summary>Compact JSON, for comparing raw JSON strings whatever their spacing.</summary>
        public static string Canon(string raw)
        {
            return raw == null ? null : JsonNode.Parse(raw).ToJson();
        }
    }

    /// <summary>Matches request paths to the served document's path templates.</summary>
    public static class PathTemplates
    {
        /// <summary>The most specific template (most literal characters) matching the path, or the path itself.</summary>
        public static string TemplateOf(IEnumerable<string> templates, string path)
        {
            string best = null;
            int bestLiteral = -1;
            foreach (string template in templates)
            {
                string pattern = "^" + Regex.Replace(Regex.Escape(template), @"\\\{[^}]+}", "[^/]+") + "$";
                if (!Regex.IsMatch(path, pattern)) continue;
                int literal = Regex.Replace(template, @"\{[^}]+\}", "").Length;
                if (literal > bestLiteral)
                {
                    best = template;
                    bestLiteral = literal;
                }
            }
            return best ?? path;
        }
    }
}

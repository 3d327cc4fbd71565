using System;
using System.Collections.Generic;
using System.Runtime.ExceptionServices;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;

namespace GameBackend
{
    internal enum AuthMode
    {
        /// <summary>No token (sign-in, refresh, public reads).</summary>
        None,
        /// <summary>The signed-in player's token, refreshed when needed; MISSING_TOKEN without one.</summary>
        Player,
        /// <summary>The token when signed in (register and idp link to the signed-in player).</summary>
        Optional,
    }

    internal sealed class RequestSpec
    {
        public string Method;
        /// <summary>The path under /api/v1 with its segments already encoded, and the query.</summary>
        public string Path;
        public JsonNode Body;
        public Dictionary<string, string> Headers;
        public AuthMode Auth;
        /// <summary>Safe to send again after a lost answer: GET/PUT/DELETE that repeat the same, or carrying an Idempotency-Key.</summary>
        public bool Resendable;
        /// <summary>
        /// Also retry any 5xx (not only 503): for calls whose body is itself the idempotency key, such as a
        /// store receipt, which the server answers the same however often it arrives.
        /// </summary>
        public bool RetryServerErrors;
    }

    /// <summary>A 2xx or 304 answer: its status and JSON (null for 204, 304 or an empty body).</summary>
    internal sealed class Answer
    {
        public int Status;
        public JsonNode Body;
        public string RequestId;
        /// <summary>The ETag header, or null.</summary>
        public string ETag;
    }

    /// <summary>
    /// What every call goes through: the session (restore, refresh single flight, caller check, device
    /// recovery), retries with backoff and Retry-After, errors. Mirrors sdk/src/transport.ts.
    /// Runs on the caller's synchronisation context (no ConfigureAwait(false)), so in Unity everything
    /// happens on the main thread, as UnityWebRequest and PlayerPrefs need.
    /// </summary>
    internal sealed class ClientCore
    {
        private const string B64Url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        private static readonly RandomNumberGenerator SecureRandom = RandomNumberGenerator.Create();

        private readonly string api;
        private readonly string apiKey;
        private readonly ISessionStore store;
        private readonly string sessionKey;
        private readonly string deviceKey;
        private readonly IHttpTransport transport;
        private readonly IDelay delay;
        private readonly Func<DateTimeOffset> clock;
        private readonly RetryOptions retry;
        private readonly TimeSpan margin;
        private readonly TimeSpan timeout;
        private readonly bool devices;
        private readonly string clientVersion;
        private readonly string platform;
        private readonly SynchronizationContext context;
        private readonly object gate = new object();
        private readonly Random jitter = new Random();

        /// <summary>The longest finite attempt timeout CancellationTokenSource.CancelAfter takes (int.MaxValue ms).</summary>
        private static readonly TimeSpan MaxTimeout = TimeSpan.FromMilliseconds(int.MaxValue);

        private Session session;
        private Task<Session> refreshing;
        /// <summary>Bumped by every change of the session; events older than the last one delivered are dropped.</summary>
        private long changes;
        private long delivered;
        private readonly object raiseGate = new object();
        /// <summary>Store writes run one after another, each writing the session as it is then.</summary>
        private Task lastWrite = Task.FromResult(0);
        private readonly Task ready;

        public event Action<Session> SessionChanged;

        public ClientCore(GameClientOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            if (string.IsNullOrEmpty(options.BaseUrl)) throw new ArgumentException("BaseUrl is required, e.g. \"https://game.example.com\".", "options");
            if (string.IsNullOrEmpty(options.ApiKey)) throw new ArgumentException("ApiKey is required: a client key of the project (gb_client_…).", "options");
            if (options.ApiKey.StartsWith("gb_server_", StringComparison.Ordinal))
            {
                throw new ArgumentException(
                    "This is a server key (gb_server_…), which can act as any player of the project; never ship it in a game. Use a client key (gb_client_…).",
                    "options");
            }
            api = options.BaseUrl.TrimEnd('/') + "/api/v1";
            apiKey = options.ApiKey;
            sessionKey = string.IsNullOrEmpty(options.SessionKey) ? "game-backend.session" : options.SessionKey;
            deviceKey = sessionKey + ".device";
            store = options.SessionStore ?? Defaults.Store();
            transport = options.Transport ?? Defaults.Transport();
            delay = options.Delay ?? Defaults.Delay();
            clock = options.Clock ?? (() => DateTimeOffset.UtcNow);
            retry = options.Retry ?? new RetryOptions();
            margin = TimeSpan.FromSeconds(Math.Max(0, options.RefreshMarginSeconds));
            timeout = options.Timeout == Timeout.InfiniteTimeSpan ? Timeout.InfiniteTimeSpan
                : options.Timeout <= TimeSpan.Zero ? TimeSpan.FromSeconds(30)
                : options.Timeout > MaxTimeout ? MaxTimeout : options.Timeout;
            devices = options.DeviceSecret;
            clientVersion = Clean(options.ClientVersion ?? Defaults.ClientVersion());
            platform = Clean(options.Platform ?? Defaults.Platform());
            context = SynchronizationContext.Current;
            ready = Restore();
        }

        public Session Session
        {
            get { lock (gate) return session; }
        }

        public Task ReadyAsync(CancellationToken cancellationToken)
        {
            return Until(ready, cancellationToken);
        }

        private async Task Restore()
        {
            Session stored = null;
            try
            {
                stored = Session.FromJson(await store.GetAsync(sessionKey));
            }
            catch (Exception)
            {
                // An unreadable store: signed out, the game signs in again.
            }
            Adopt(stored);
        }

        /// <summary>Header values the server would ignore anyway (too long, control characters) are not sent.</summary>
        private static string Clean(string value)
        {
            if (string.IsNullOrEmpty(value)) return null;
            value = value.Trim();
            if (value.Length == 0 || value.Length > 64) return null;
            foreach (char c in value)
            {
                if (c < 0x20 || c > 0x7e) return null;
            }
            return value;
        }

        // ---- Sessions

        private void Adopt(Session next)
        {
            AdoptIf(null, next, false);
        }

        /// <summary>
        /// Makes <paramref name="next"/> the session, when <paramref name="onlyOver"/> is false or the session
        /// is still <paramref name="expected"/> (compare and swap: a sign-in or sign-out on another thread
        /// meanwhile stands). Tells the listeners when the player or the refresh token changed.
        /// </summary>
        private bool AdoptIf(Session expected, Session next, bool onlyOver = true)
        {
            bool changed;
            long change;
            lock (gate)
            {
                Session before = session;
                if (onlyOver && before != expected) return false;
                changed = (next == null) != (before == null)
                    || (next != null && (next.RefreshToken != before.RefreshToken || next.PlayerId != before.PlayerId));
                session = next;
                change = changed ? ++changes : changes;
            }
            if (changed) Raise(next, change);
            return true;
        }

        /// <summary>
        /// On the context the client was made on (at once when already there or when there is none), in the
        /// order of the changes: an event overtaken by a later one is dropped, so the last one delivered is
        /// always the current session.
        /// </summary>
        private void Raise(Session next, long change)
        {
            SynchronizationContext current = SynchronizationContext.Current;
            if (context == null || context == current) Deliver(next, change);
            else context.Post(state => Deliver(next, change), null);
        }

        private void Deliver(Session next, long change)
        {
            lock (raiseGate)
            {
                if (change <= delivered) return;
                delivered = change;
                Action<Session> handlers = SessionChanged;
                if (handlers != null) handlers(next);
            }
        }

        public async Task SetSessionAsync(Session next)
        {
            // A restore that finishes later must not overwrite this change.
            await ready;
            Adopt(next);
            await PersistAsync();
        }

        /// <summary>
        /// Writes the session as it is now, after the writes before it: a slow store (a keychain) cannot
        /// end with a refresh's tokens written after a sign-out's removal.
        /// </summary>
        private Task PersistAsync()
        {
            TaskCompletionSource<bool> mine = new TaskCompletionSource<bool>();
            Task previous;
            lock (gate)
            {
                previous = lastWrite;
                lastWrite = mine.Task;
            }
            return WriteAfter(previous, mine);
        }

        private async Task WriteAfter(Task previous, TaskCompletionSource<bool> mine)
        {
            try
            {
                try
                {
                    await previous;
                }
                catch (Exception)
                {
                    // That write's caller got its error; this one writes the newer state regardless.
                }
                Session current = Session;
                if (current != null) await store.SetAsync(sessionKey, current.ToJson());
                else await store.RemoveAsync(sessionKey);
            }
            finally
            {
                mine.SetResult(true);
            }
        }

        public Session SessionFrom(Answer answer)
        {
            SessionAnswer body = AnswerReader.Read(answer, SessionAnswer.FromJson);
            return new Session(body.PlayerId, body.AccessToken, body.RefreshToken, clock() + TimeSpan.FromSeconds(body.ExpiresIn));
        }

        public async Task<Session> SignInAsync(Answer answer)
        {
            Session next = SessionFrom(answer);
            await SetSessionAsync(next);
            return next;
        }

        // ---- Requests

        public static string Segment(string name, string value)
        {
            if (value == null) throw new ArgumentNullException(name);
            if (value.Length == 0 || value == "." || value == "..")
            {
                string message = "\"" + value + "\" cannot be a " + name + ": a URL would rewrite it. Nothing was sent.";
                string details = JsonNode.NewObject().Set("issues", JsonNode.NewArray().Add(
                    JsonNode.NewObject().Set("path", JsonNode.From("params." + name)).Set("message", JsonNode.From(message)))).ToJson();
                throw new GameApiException(400, ErrorCodes.ValidationError, message, details);
            }
            return Uri.EscapeDataString(value);
        }

        private TimeSpan DelayFor(int attempt, int? retryAfterSeconds, TimeSpan floor)
        {
            double random;
            lock (jitter) random = jitter.NextDouble();
            if (retryAfterSeconds.HasValue)
            {
                return TimeSpan.FromSeconds(retryAfterSeconds.Value) + TimeSpan.FromMilliseconds(random * retry.BaseDelay.TotalMilliseconds);
            }
            double ceiling = Math.Min(retry.MaxDelay.TotalMilliseconds, retry.BaseDelay.TotalMilliseconds * Math.Pow(2, attempt));
            return TimeSpan.FromMilliseconds(Math.Max(floor.TotalMilliseconds, random * ceiling));
        }

        public async Task<Answer> SendAsync(RequestSpec spec, bool retries, CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            string url = api + spec.Path;
            string body = spec.Body == null ? null : spec.Body.ToJson();
            int maxRetries = retries ? Math.Max(0, retry.Retries) : 0;
            int attempt = 0;
            bool refreshed = false;
            // A player call belongs to the player signed in when it was made, whatever happens meanwhile.
            Session atStart = Session;
            string caller = spec.Auth == AuthMode.Player && atStart != null ? atStart.PlayerId : null;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Dictionary<string, string> headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
                headers["Accept"] = "application/json";
                headers["X-API-Key"] = apiKey;
                if (clientVersion != null) headers["X-Client-Version"] = clientVersion;
                if (platform != null) headers["X-Platform"] = platform;
                if (spec.Headers != null)
                {
                    foreach (KeyValuePair<string, string> header in spec.Headers) headers[header.Key] = header.Value;
                }
                if (body != null) headers["Content-Type"] = "application/json";
                string token = null;
                if (spec.Auth == AuthMode.Player)
                {
                    Session valid = await ValidSessionAsync(caller, cancellationToken);
                    token = valid.AccessToken;
                }
                else if (spec.Auth == AuthMode.Optional)
                {
                    Session current = Session;
                    if (current != null) token = current.AccessToken;
                }
                if (token != null) headers["Authorization"] = "Bearer " + token;

                ApiResponse response = null;
                Exception lost = null;
                try
                {
                    response = await transport.SendAsync(
                        new ApiRequest { Method = spec.Method, Url = url, Headers = headers, Body = body }, timeout, cancellationToken);
                    if (response == null) throw new InvalidOperationException("The transport returned no response.");
                }
                catch (OperationCanceledException)
                {
                    if (cancellationToken.IsCancellationRequested) throw;
                    lost = new TimeoutException("No answer in time.");
                }
                catch (Exception error)
                {
                    lost = error;
                }
                if (lost != null)
                {
                    // What no retry mends (a URL the platform refuses, a misconfigured transport) fails at once.
                    bool mendable = !(lost is InvalidOperationException || lost is ArgumentException || lost is NotSupportedException);
                    if (spec.Resendable && mendable && attempt < maxRetries)
                    {
                        await delay.DelayAsync(DelayFor(attempt++, null, TimeSpan.Zero), cancellationToken);
                        continue;
                    }
                    throw new GameApiException(0, ErrorCodes.NetworkError, "The game backend could not be reached: " + lost.Message, null, null, null, lost);
                }

                JsonNode json = null;
                bool notJson = false;
                if (response.Status != 204 && !string.IsNullOrEmpty(response.Body))
                {
                    try
                    {
                        json = JsonNode.Parse(response.Body);
                    }
                    catch (JsonException)
                    {
                        notJson = true;
                    }
                }
                string requestId = response.Header("x-request-id");
                // 304: a conditional GET's "what you have is current" (If-None-Match).
                if ((response.Status >= 200 && response.Status < 300) || response.Status == 304)
                {
                    if (notJson)
                    {
                        throw new GameApiException(response.Status, ErrorCodes.UnexpectedResponse, "The answer was not the API's JSON.", null, requestId);
                    }
                    return new Answer { Status = response.Status, Body = json, RequestId = requestId, ETag = response.Header("etag") };
                }
                GameApiException refusal = ErrorFrom(response, json, requestId);
                // An access token that expired, or was signed before a key rotation: one refresh, then the same call again.
                if (refusal.Code == ErrorCodes.InvalidToken && spec.Auth != AuthMode.None && token != null && !refreshed
                    && refusal.DetailString("reason") != "project")
                {
                    refreshed = true;
                    await RefreshAsync(token, cancellationToken);
                    continue;
                }
                bool inProgress = refusal.Code == ErrorCodes.IdempotencyInProgress;
                bool serverError = spec.RetryServerErrors && response.Status >= 500;
                if ((response.Status == 429 || response.Status == 503 || inProgress || serverError) && attempt < maxRetries)
                {
                    // The first attempt is still running on the server: give it time to finish.
                    TimeSpan wait = DelayFor(attempt++, refusal.RetryAfterSeconds, inProgress ? TimeSpan.FromSeconds(1) : TimeSpan.Zero);
                    if (wait <= retry.MaxDelay + retry.BaseDelay)
                    {
                        await delay.DelayAsync(wait, cancellationToken);
                        continue;
                    }
                }
                throw refusal;
            }
        }

        /// <summary>The contract's error body; anything else becomes UNEXPECTED_RESPONSE.</summary>
        private static GameApiException ErrorFrom(ApiResponse response, JsonNode json, string requestId)
        {
            JsonNode error = json != null && json.Kind == JsonKind.Object ? json["error"] : null;
            JsonNode code = error != null && error.Kind == JsonKind.Object ? error["code"] : null;
            JsonNode message = error != null && error.Kind == JsonKind.Object ? error["message"] : null;
            JsonNode details = error != null && error.Kind == JsonKind.Object ? error["details"] : null;
            int? retryAfter = null;
            string header = response.Header("retry-after");
            int seconds;
            if (header != null && int.TryParse(header.Trim(), System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out seconds) && seconds >= 0)
            {
                retryAfter = seconds;
            }
            GameApiException read = new GameApiException(
                response.Status,
                code != null && code.Kind == JsonKind.String ? code.AsString() : ErrorCodes.UnexpectedResponse,
                message != null && message.Kind == JsonKind.String ? message.AsString() : "Unexpected answer (HTTP " + response.Status + ")",
                details != null && details.Kind == JsonKind.Object ? details.ToJson() : "{}",
                requestId,
                retryAfter);
            return read.Code == ErrorCodes.ReceiptPending ? new ReceiptPendingException(read) : read;
        }

        private async Task<Session> ValidSessionAsync(string caller, CancellationToken cancellationToken)
        {
            Session current = await FreshSessionAsync(cancellationToken);
            if (current.PlayerId != caller)
            {
                throw new SessionEndedException(401, ErrorCodes.InvalidToken, "Another player signed in while this call waited; it was not sent.",
                    "{\"reason\":\"player-changed\"}");
            }
            return current;
        }

        private Task<Session> FreshSessionAsync(CancellationToken cancellationToken)
        {
            Session current = Session;
            if (current == null)
            {
                throw new GameApiException(401, ErrorCodes.MissingToken,
                    "Not signed in: call Auth.AnonymousAsync(), Auth.LoginAsync() or Auth.RegisterAsync() first.");
            }
            if (current.ExpiresAt - margin > clock()) return Task.FromResult(current);
            return RefreshAsync(current.AccessToken, cancellationToken);
        }

        /// <summary>
        /// One refresh at a time (single flight): a caller whose token was already replaced gets the new
        /// session without another refresh. The shared refresh runs with none of the callers' tokens: one
        /// caller giving up must not drop tokens the server already rotated.
        /// </summary>
        public Task<Session> RefreshAsync(string staleAccessToken, CancellationToken cancellationToken)
        {
            TaskCompletionSource<Session> started = null;
            Task<Session> shared;
            lock (gate)
            {
                if (session != null && staleAccessToken != null && session.AccessToken != staleAccessToken) return Task.FromResult(session);
                if (refreshing == null)
                {
                    started = new TaskCompletionSource<Session>();
                    refreshing = started.Task;
                }
                shared = refreshing;
            }
            if (started != null) RunRefresh(started, staleAccessToken);
            return Until(shared, cancellationToken);
        }

        private async void RunRefresh(TaskCompletionSource<Session> done, string staleAccessToken)
        {
            Session result = null;
            Exception failure = null;
            try
            {
                result = await RotateAsync(staleAccessToken);
            }
            catch (Exception error)
            {
                failure = error;
            }
            lock (gate) refreshing = null;
            if (failure != null) done.SetException(failure);
            else done.SetResult(result);
        }

        private async Task<Session> RotateAsync(string staleAccessToken)
        {
            Session before = Session;
            if (staleAccessToken != null && before != null && before.AccessToken != staleAccessToken && before.ExpiresAt - margin > clock())
            {
                return before;
            }
            if (before == null) throw new SessionEndedException(401, ErrorCodes.MissingToken, "Not signed in.");
            if (staleAccessToken != null)
            {
                // Another client on the same store (a second GameClient, a second instance of the game) may
                // have rotated already: its tokens are in the store, and ours are spent. Sending them again
                // would look like a stolen token to the server and end the session for both.
                Session stored = null;
                try
                {
                    stored = Session.FromJson(await store.GetAsync(sessionKey));
                }
                catch (Exception)
                {
                    // Unreadable: refresh with ours.
                }
                if (stored != null && stored.PlayerId == before.PlayerId && stored.AccessToken != staleAccessToken
                    && stored.RefreshToken != before.RefreshToken && stored.ExpiresAt - margin > clock() && AdoptIf(before, stored))
                {
                    return stored;
                }
            }
            GameApiException refused = null;
            try
            {
                Answer answer = await SendAsync(new RequestSpec
                {
                    Method = "POST",
                    Path = "/auth/refresh",
                    Body = new RefreshBody { RefreshToken = before.RefreshToken }.ToJson(),
                    Auth = AuthMode.None,
                    Resendable = true,
                }, true, CancellationToken.None);
                Session next = SessionFrom(answer);
                // Signed out or into another account while this refresh ran: theirs stands, these tokens are dropped.
                if (!AdoptIf(before, next))
                {
                    Session now = Session;
                    if (now != null) return now;
                    throw new SessionEndedException(401, ErrorCodes.InvalidToken, "Signed out while this call waited.", "{\"reason\":\"signed-out\"}");
                }
                await PersistAsync();
                return next;
            }
            catch (GameApiException error)
            {
                // Only the refresh token's refusal ends the session; a revoked API key or a proxy's 401 does not.
                if (error.Code != ErrorCodes.InvalidToken || error is SessionEndedException || Session != before) throw;
                refused = error;
            }
            Session recovered = await RecoverAsync(before);
            if (recovered != null) return recovered;
            if (!AdoptIf(before, null)) throw refused;
            await PersistAsync();
            throw new SessionEndedException(refused.Status, refused.Code, "The session has ended; sign in again.", refused.DetailsJson, refused.RequestId, refused);
        }

        // ---- Device secret (recoverable anonymous players)

        private static string NewDeviceSecret()
        {
            // 43 characters of base64url, 258 random bits (each byte's low 6 bits: 256 is a multiple of 64, so unbiased).
            byte[] bytes = new byte[43];
            lock (SecureRandom) SecureRandom.GetBytes(bytes);
            StringBuilder secret = new StringBuilder(43);
            foreach (byte b in bytes) secret.Append(B64Url[b & 63]);
            return secret.ToString();
        }

        private async Task<DeviceCredential> LoadDeviceAsync()
        {
            try
            {
                return DeviceCredential.FromJson(await store.GetAsync(deviceKey));
            }
            catch (Exception)
            {
                return null;
            }
        }

        private async Task<DeviceCredential> SaveDeviceAsync(DeviceCredential device)
        {
            await store.SetAsync(deviceKey, device.ToJson());
            return device;
        }

        private Task<Answer> SignInWithDevice(string secret, bool retries, CancellationToken cancellationToken)
        {
            return SendAsync(new RequestSpec
            {
                Method = "POST",
                Path = "/auth/anonymous",
                Body = new AnonymousBody { DeviceSecret = secret }.ToJson(),
                Auth = AuthMode.None,
                Resendable = true,
            }, retries, cancellationToken);
        }

        /// <summary>POST /auth/anonymous with this device's secret (made and stored before its first use, so a resend carries the same).</summary>
        public async Task<Answer> AnonymousAsync(bool retries, CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            if (!devices)
            {
                return await SendAsync(new RequestSpec
                {
                    Method = "POST", Path = "/auth/anonymous", Body = new AnonymousBody().ToJson(), Auth = AuthMode.None, Resendable = true,
                }, retries, cancellationToken);
            }
            string fresh = NewDeviceSecret();
            DeviceCredential device = await LoadDeviceAsync();
            if (device == null) device = await SaveDeviceAsync(new DeviceCredential(fresh, null));
            Answer answer = null;
            try
            {
                answer = await SignInWithDevice(device.Secret, retries, cancellationToken);
            }
            catch (GameApiException error)
            {
                // The device's player has signed up with an e-mail or a provider since: this device gets a new guest.
                if (error.Code != ErrorCodes.AccountAlreadyLinked) throw;
            }
            if (answer == null)
            {
                device = await SaveDeviceAsync(new DeviceCredential(fresh, null));
                answer = await SignInWithDevice(device.Secret, retries, cancellationToken);
            }
            SessionAnswer body = AnswerReader.Read(answer, SessionAnswer.FromJson);
            await SaveDeviceAsync(new DeviceCredential(device.Secret, body.PlayerId));
            return answer;
        }

        public async Task ForgetDeviceAsync(CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            await store.RemoveAsync(deviceKey);
        }

        /// <summary>The device's anonymous player, whose session the server ended, signed in again with the device secret (once).</summary>
        private async Task<Session> RecoverAsync(Session before)
        {
            DeviceCredential device = devices ? await LoadDeviceAsync() : null;
            if (device == null || device.PlayerId != before.PlayerId) return null;
            try
            {
                Answer answer = await SignInWithDevice(device.Secret, true, CancellationToken.None);
                Session next = SessionFrom(answer);
                if (next.PlayerId != before.PlayerId)
                {
                    // The player was deleted: the secret made a new one, which the next AnonymousAsync signs in.
                    await SaveDeviceAsync(new DeviceCredential(device.Secret, next.PlayerId));
                    return null;
                }
                if (!AdoptIf(before, next)) return null;
                await PersistAsync();
                return next;
            }
            catch (Exception)
            {
                return null;
            }
        }

        /// <summary>Ends the session on the server and forgets it here (see AuthApi.LogoutAsync).</summary>
        public async Task LogoutAsync(bool retries, CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            Exception failure = null;
            try
            {
                if (Session != null)
                {
                    await SendAsync(new RequestSpec { Method = "POST", Path = "/auth/logout", Auth = AuthMode.Player, Resendable = true }, retries, cancellationToken);
                }
            }
            catch (GameApiException error)
            {
                if (error.Status != 401) failure = error;
            }
            catch (Exception error)
            {
                failure = error;
            }
            await SetSessionAsync(null);
            if (failure != null) ExceptionDispatchInfo.Capture(failure).Throw();
        }

        // ---- What else is kept in the store, beside the session

        /// <summary>The value kept under SessionKey + "." + <paramref name="name"/>, or null (also when the store cannot be read).</summary>
        public async Task<string> KeptAsync(string name)
        {
            try
            {
                return await store.GetAsync(sessionKey + "." + name);
            }
            catch (Exception)
            {
                return null;
            }
        }

        public Task KeepAsync(string name, string value)
        {
            return store.SetAsync(sessionKey + "." + name, value);
        }

        /// <summary>The remote config last answered in this process (shared by every API object of the client), or null.</summary>
        internal KeptConfig LastConfig
        {
            get { lock (gate) return lastConfig; }
            set { lock (gate) lastConfig = value; }
        }

        private KeptConfig lastConfig;

        // ---- Helpers

        /// <summary><paramref name="work"/>, or OperationCanceledException as soon as the token fires (the work itself goes on).</summary>
        internal static async Task Until(Task work, CancellationToken cancellationToken)
        {
            if (!cancellationToken.CanBeCanceled || work.IsCompleted)
            {
                await work;
                return;
            }
            TaskCompletionSource<bool> cancelled = new TaskCompletionSource<bool>();
            using (cancellationToken.Register(() => cancelled.TrySetResult(true)))
            {
                Task first = await Task.WhenAny(work, cancelled.Task);
                if (first != work) throw new OperationCanceledException(cancellationToken);
            }
            await work;
        }

        internal static async Task<T> Until<T>(Task<T> work, CancellationToken cancellationToken)
        {
            await Until((Task)work, cancellationToken);
            return await work;
        }
    }
}

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
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

    /// <summary>One logical call: its deadline (started when the call was made), how often it may be sent, its Idempotency-Key.</summary>
    internal sealed class CallContext
    {
        public readonly TimeSpan Deadline;
        /// <summary>At most this many sends; null: the client's retries (and 503 SERVICE_UNAVAILABLE password_checks_busy until the deadline).</summary>
        public readonly int? MaxAttempts;
        /// <summary>Null for calls that send none.</summary>
        public readonly string IdempotencyKey;
        private readonly Stopwatch watch = Stopwatch.StartNew();
        private long waitedTicks;

        public CallContext(TimeSpan deadline, int? maxAttempts, string idempotencyKey)
        {
            Deadline = deadline;
            MaxAttempts = maxAttempts;
            IdempotencyKey = idempotencyKey;
        }

        public bool Unbounded
        {
            get { return Deadline == Timeout.InfiniteTimeSpan; }
        }

        /// <summary>
        /// What is left of the deadline (Timeout.InfiniteTimeSpan when there is none): the time since the call
        /// began, or the retry waits asked for when they add up to more (an injected IDelay that returns at
        /// once still spends the call's time, as the waits it stands for would).
        /// </summary>
        public TimeSpan Remaining
        {
            get
            {
                if (Unbounded) return Timeout.InfiniteTimeSpan;
                TimeSpan elapsed = watch.Elapsed;
                TimeSpan waited = TimeSpan.FromTicks(Interlocked.Read(ref waitedTicks));
                return Deadline - (waited > elapsed ? waited : elapsed);
            }
        }

        public void Waited(TimeSpan wait)
        {
            Interlocked.Add(ref waitedTicks, wait.Ticks);
        }
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
        private readonly TimeSpan deadline;
        private readonly Action<GameLogLevel, string> log;
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

        /// <summary>Raised before each retry's wait (GameClient.Retrying).</summary>
        public event Action<RetryEvent> Retrying;

        /// <summary>503 with this code: the server's password-hash queue is full; nothing was done, send it again after Retry-After.</summary>
        internal const string PasswordChecksBusy = "password_checks_busy";

        public ClientCore(GameClientOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            api = CheckBaseUrl(options.BaseUrl) + "/api/v1";
            apiKey = CheckApiKey(options.ApiKey);
            timeout = CheckSpan(options.Timeout, "Timeout", "how long one attempt may wait for its answer");
            deadline = CheckSpan(options.Deadline, "Deadline", "how long one call may take, its retries included");
            retry = options.Retry ?? new RetryOptions();
            if (retry.Retries < 0) throw new ArgumentException("Retry.Retries must be 0 or more; it is " + retry.Retries + ".", "options");
            if (retry.BaseDelay < TimeSpan.Zero || retry.MaxDelay < TimeSpan.Zero)
            {
                throw new ArgumentException("Retry.BaseDelay and Retry.MaxDelay cannot be negative.", "options");
            }
            log = options.Log;
            sessionKey = string.IsNullOrEmpty(options.SessionKey) ? "game-backend.session" : options.SessionKey;
            deviceKey = sessionKey + ".device";
            store = options.SessionStore ?? Defaults.Store();
            transport = options.Transport ?? Defaults.Transport();
            delay = options.Delay ?? Defaults.Delay();
            clock = options.Clock ?? (() => DateTimeOffset.UtcNow);
            margin = TimeSpan.FromSeconds(Math.Max(0, options.RefreshMarginSeconds));
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

        // ---- Options, checked when the client is made (a mistake there fails at once, not as a later NETWORK_ERROR)

        private static string CheckBaseUrl(string baseUrl)
        {
            if (string.IsNullOrEmpty(baseUrl)) throw new ArgumentException("BaseUrl is required, e.g. \"https://game.example.com\".", "options");
            Uri parsed;
            if (!Uri.TryCreate(baseUrl.Trim(), UriKind.Absolute, out parsed) || (parsed.Scheme != "http" && parsed.Scheme != "https")
                || string.IsNullOrEmpty(parsed.Host) || baseUrl.Trim() != baseUrl)
            {
                throw new ArgumentException("BaseUrl must be an absolute http:// or https:// URL, e.g. \"https://game.example.com\" or \"http://192.168.1.20:3000\"; \""
                    + baseUrl + "\" is not.", "options");
            }
            if (!string.IsNullOrEmpty(parsed.Query) || !string.IsNullOrEmpty(parsed.Fragment))
            {
                throw new ArgumentException("BaseUrl is the server's origin (and path), without a query or fragment; \"" + baseUrl + "\" has one.", "options");
            }
            return baseUrl.TrimEnd('/');
        }

        private static string CheckApiKey(string key)
        {
            if (string.IsNullOrEmpty(key)) throw new ArgumentException("ApiKey is required: a client key of the project (gb_client_…).", "options");
            if (key.EndsWith("\n", StringComparison.Ordinal) || key.EndsWith("\r", StringComparison.Ordinal))
            {
                throw new ArgumentException("ApiKey ends with a newline (read from a file or an environment variable?): trim it.", "options");
            }
            for (int i = 0; i < key.Length; i++)
            {
                char c = key[i];
                if (char.IsWhiteSpace(c) || char.IsControl(c))
                {
                    throw new ArgumentException("ApiKey contains " + (char.IsWhiteSpace(c) ? "whitespace" : "a control character") + " at position " + i
                        + ": a key is one word (gb_client_…), copy it again.", "options");
                }
            }
            if (key.StartsWith("gb_server_", StringComparison.Ordinal))
            {
                throw new ArgumentException(
                    "This is a server key (gb_server_…), which can act as any player of the project; never ship it in a game. Use a client key (gb_client_…).",
                    "options");
            }
            return key;
        }

        private static TimeSpan CheckSpan(TimeSpan value, string name, string what)
        {
            if (value == Timeout.InfiniteTimeSpan) return value;
            if (value <= TimeSpan.Zero)
            {
                throw new ArgumentException(name + " (" + what + ") must be positive, or Timeout.InfiniteTimeSpan; it is " + value + ".", "options");
            }
            return value > MaxTimeout ? MaxTimeout : value;
        }

        /// <summary>The context of one call made with <paramref name="options"/>; <paramref name="idempotent"/>: it sends an Idempotency-Key.</summary>
        public CallContext NewCall(CallOptions options, bool retries, bool idempotent = false)
        {
            TimeSpan limit = deadline;
            int? maxAttempts = retries ? (int?)null : 1;
            string key = null;
            if (options != null)
            {
                if (options.Deadline.HasValue)
                {
                    if (options.Deadline.Value != Timeout.InfiniteTimeSpan && options.Deadline.Value <= TimeSpan.Zero)
                    {
                        throw new ArgumentOutOfRangeException("options", "CallOptions.Deadline must be positive, or Timeout.InfiniteTimeSpan; it is " + options.Deadline.Value + ".");
                    }
                    limit = options.Deadline.Value > MaxTimeout ? MaxTimeout : options.Deadline.Value;
                }
                if (options.MaxAttempts.HasValue)
                {
                    if (options.MaxAttempts.Value < 1) throw new ArgumentOutOfRangeException("options", "CallOptions.MaxAttempts must be 1 or more; it is " + options.MaxAttempts.Value + ".");
                    maxAttempts = retries ? options.MaxAttempts.Value : 1;
                }
                if (idempotent && options.IdempotencyKey != null) key = CheckIdempotencyKey(options.IdempotencyKey);
            }
            if (idempotent && key == null) key = NewIdempotencyKey();
            return new CallContext(limit, maxAttempts, key);
        }

        /// <summary>1–255 visible ASCII characters, as the server takes them (anything else would be its 400).</summary>
        internal static string CheckIdempotencyKey(string key)
        {
            if (key.Length == 0 || key.Length > 255)
            {
                throw new ArgumentException("CallOptions.IdempotencyKey must be 1–255 characters; it has " + key.Length + ". Nothing was sent.", "options");
            }
            foreach (char c in key)
            {
                if (c < 0x21 || c > 0x7e)
                {
                    throw new ArgumentException("CallOptions.IdempotencyKey must be visible ASCII characters (no spaces, no line breaks); use GameClient.NewIdempotencyKey(). Nothing was sent.", "options");
                }
            }
            return key;
        }

        /// <summary>32 lower-case hex characters of 128 random bits.</summary>
        public static string NewIdempotencyKey()
        {
            byte[] bytes = new byte[16];
            lock (SecureRandom) SecureRandom.GetBytes(bytes);
            StringBuilder key = new StringBuilder(32);
            foreach (byte b in bytes) key.Append(b.ToString("x2", CultureInfo.InvariantCulture));
            return key.ToString();
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

        /// <summary>
        /// Sends one request of <paramref name="call"/> within its deadline: past it (a hung attempt, a
        /// refresh, the waits) the call throws TIMEOUT; a retry whose wait would outlast it is not made.
        /// </summary>
        public async Task<Answer> SendAsync(RequestSpec spec, CallContext call, CancellationToken cancellationToken)
        {
            string line = spec.Method + " " + spec.Path;
            try
            {
                if (call.Unbounded) return await SendWithinAsync(spec, call, cancellationToken, line);
                TimeSpan left = call.Remaining;
                if (left <= TimeSpan.Zero) throw DeadlinePassed(call, line, null);
                using (CancellationTokenSource within = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
                {
                    within.CancelAfter(left);
                    try
                    {
                        return await SendWithinAsync(spec, call, within.Token, line);
                    }
                    catch (OperationCanceledException error) when (!cancellationToken.IsCancellationRequested && within.IsCancellationRequested)
                    {
                        throw DeadlinePassed(call, line, error);
                    }
                }
            }
            catch (GameApiException error)
            {
                if (error.IdempotencyKey == null) error.IdempotencyKey = call.IdempotencyKey;
                Log(GameLogLevel.Error, line + " failed: " + error);
                throw;
            }
        }

        private static GameApiException DeadlinePassed(CallContext call, string line, Exception inner)
        {
            return new GameApiException(0, ErrorCodes.Timeout,
                "No answer to " + line + " within the call's deadline of " + call.Deadline.TotalSeconds.ToString(CultureInfo.InvariantCulture)
                + " s (retries included)." + (call.IdempotencyKey != null ? " It may have been applied: send it again with the same IdempotencyKey." : ""),
                null, null, null, inner);
        }

        private async Task<Answer> SendWithinAsync(RequestSpec spec, CallContext call, CancellationToken cancellationToken, string line)
        {
            await Until(ready, cancellationToken);
            string url = api + spec.Path;
            string body = spec.Body == null ? null : spec.Body.ToJson();
            int maxRetries = call.MaxAttempts.HasValue ? call.MaxAttempts.Value - 1 : Math.Max(0, retry.Retries);
            // 503 SERVICE_UNAVAILABLE password_checks_busy is retried until the deadline, unless the call limits its attempts or retries are off.
            bool busyUntilDeadline = !call.MaxAttempts.HasValue && maxRetries > 0;
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

                // Each attempt gets at most what is left of the call's deadline.
                TimeSpan left = call.Remaining;
                TimeSpan attemptTimeout = left == Timeout.InfiniteTimeSpan || (timeout != Timeout.InfiniteTimeSpan && timeout <= left) ? timeout : left;
                if (attemptTimeout != Timeout.InfiniteTimeSpan && attemptTimeout <= TimeSpan.Zero) throw DeadlinePassed(call, line, null);
                if (log != null) Log(GameLogLevel.Debug, "→ " + line + " attempt " + (attempt + 1) + Redaction.Headers(headers) + (body != null ? " " + Redaction.Body(spec.Body, true) : ""));
                Stopwatch took = Stopwatch.StartNew();

                ApiResponse response = null;
                Exception lost = null;
                try
                {
                    response = await transport.SendAsync(
                        new ApiRequest { Method = spec.Method, Url = url, Headers = headers, Body = body }, attemptTimeout, cancellationToken);
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
                    if (!call.Unbounded && call.Remaining <= TimeSpan.Zero) throw DeadlinePassed(call, line, lost);
                    // What no retry mends (a URL the platform refuses, a misconfigured transport) fails at once.
                    bool mendable = !(lost is InvalidOperationException || lost is ArgumentException || lost is NotSupportedException);
                    if (spec.Resendable && mendable && attempt < maxRetries)
                    {
                        TimeSpan backoff = DelayFor(attempt, null, TimeSpan.Zero);
                        if (Fits(call, backoff))
                        {
                            await WaitToRetry(call, line, ++attempt, ErrorCodes.NetworkError, 0, backoff, cancellationToken);
                            continue;
                        }
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
                if (log != null)
                {
                    Log(GameLogLevel.Info, "← " + line + " " + response.Status + " in " + ((long)took.Elapsed.TotalMilliseconds).ToString(CultureInfo.InvariantCulture)
                        + " ms" + (requestId != null ? " (request " + requestId + ")" : ""));
                    if (!string.IsNullOrEmpty(response.Body))
                    {
                        Log(GameLogLevel.Debug, "← " + line + " body " + (json != null ? Redaction.Body(json, false) : Redaction.Text(response.Body)));
                    }
                }
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
                // The server's password-hash queue was full: nothing was done, so even a call that is never resent may go again.
                bool busy = response.Status == 503 && refusal.Code == ErrorCodes.ServiceUnavailable && refusal.DetailString("reason") == PasswordChecksBusy;
                if (busy && (attempt < maxRetries || busyUntilDeadline))
                {
                    TimeSpan wait = DelayFor(attempt, refusal.RetryAfterSeconds, TimeSpan.FromMilliseconds(500));
                    if (Fits(call, wait))
                    {
                        await WaitToRetry(call, line, ++attempt, refusal.Code, response.Status, wait, cancellationToken);
                        continue;
                    }
                }
                else if ((response.Status == 429 || response.Status == 503 || inProgress || serverError) && attempt < maxRetries)
                {
                    // The first attempt is still running on the server: give it time to finish.
                    TimeSpan wait = DelayFor(attempt, refusal.RetryAfterSeconds, inProgress ? TimeSpan.FromSeconds(1) : TimeSpan.Zero);
                    if (wait <= retry.MaxDelay + retry.BaseDelay && Fits(call, wait))
                    {
                        await WaitToRetry(call, line, ++attempt, refusal.Code, response.Status, wait, cancellationToken);
                        continue;
                    }
                }
                throw refusal;
            }
        }

        /// <summary>Whether a retry after <paramref name="wait"/> still has time for its attempt: a wait never outlasts the deadline.</summary>
        private static bool Fits(CallContext call, TimeSpan wait)
        {
            return call.Unbounded || wait < call.Remaining;
        }

        private async Task WaitToRetry(CallContext call, string line, int attempt, string reason, int status, TimeSpan wait, CancellationToken cancellationToken)
        {
            call.Waited(wait);
            RetryEvent retrying = new RetryEvent { Attempt = attempt + 1, Reason = reason, Status = status, Delay = wait, Request = line };
            Log(GameLogLevel.Warning, "Retrying " + retrying);
            Action<RetryEvent> handlers = Retrying;
            if (handlers != null)
            {
                try
                {
                    handlers(retrying);
                }
                catch (Exception)
                {
                    // A listener's failure is not the call's.
                }
            }
            await delay.DelayAsync(wait, cancellationToken);
        }

        /// <summary>One line to the game's log hook, with the API key and the session's tokens blanked out however they got in.</summary>
        internal void Log(GameLogLevel level, string message)
        {
            Action<GameLogLevel, string> sink = log;
            if (sink == null) return;
            try
            {
                Session current = Session;
                message = Redaction.Literal(message, apiKey);
                if (current != null)
                {
                    message = Redaction.Literal(message, current.AccessToken);
                    message = Redaction.Literal(message, current.RefreshToken);
                }
                sink(level, "[GameBackend] " + message);
            }
            catch (Exception)
            {
                // A failing log hook must not fail the call.
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
                }, NewCall(null, true), CancellationToken.None);
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

        private Task<Answer> SignInWithDevice(string secret, CallContext call, CancellationToken cancellationToken)
        {
            return SendAsync(new RequestSpec
            {
                Method = "POST",
                Path = "/auth/anonymous",
                Body = new AnonymousBody { DeviceSecret = secret }.ToJson(),
                Auth = AuthMode.None,
                Resendable = true,
            }, call, cancellationToken);
        }

        /// <summary>POST /auth/anonymous with this device's secret (made and stored before its first use, so a resend carries the same).</summary>
        public async Task<Answer> AnonymousAsync(CallContext call, CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            if (!devices)
            {
                return await SendAsync(new RequestSpec
                {
                    Method = "POST", Path = "/auth/anonymous", Body = new AnonymousBody().ToJson(), Auth = AuthMode.None, Resendable = true,
                }, call, cancellationToken);
            }
            string fresh = NewDeviceSecret();
            DeviceCredential device = await LoadDeviceAsync();
            if (device == null) device = await SaveDeviceAsync(new DeviceCredential(fresh, null));
            Answer answer = null;
            try
            {
                answer = await SignInWithDevice(device.Secret, call, cancellationToken);
            }
            catch (GameApiException error)
            {
                // The device's player has signed up with an e-mail or a provider since: this device gets a new guest.
                if (error.Code != ErrorCodes.AccountAlreadyLinked) throw;
            }
            if (answer == null)
            {
                device = await SaveDeviceAsync(new DeviceCredential(fresh, null));
                answer = await SignInWithDevice(device.Secret, call, cancellationToken);
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
                Answer answer = await SignInWithDevice(device.Secret, NewCall(null, true), CancellationToken.None);
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
        public async Task LogoutAsync(CallContext call, CancellationToken cancellationToken)
        {
            await Until(ready, cancellationToken);
            Exception failure = null;
            try
            {
                if (Session != null)
                {
                    await SendAsync(new RequestSpec { Method = "POST", Path = "/auth/logout", Auth = AuthMode.Player, Resendable = true }, call, cancellationToken);
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

using System;
using System.IO;

namespace GameBackend
{
    /// <summary>Retries of network errors, 429, 503 and idempotent calls still in progress, with jittered backoff.</summary>
    public sealed class RetryOptions
    {
        public RetryOptions()
        {
            Retries = 3;
            BaseDelay = TimeSpan.FromMilliseconds(200);
            MaxDelay = TimeSpan.FromSeconds(5);
        }

        /// <summary>Retries after the first attempt. Default 3.</summary>
        public int Retries { get; set; }

        /// <summary>First backoff step; doubles per retry, with full jitter. Default 200 ms.</summary>
        public TimeSpan BaseDelay { get; set; }

        /// <summary>Longest wait between attempts. A Retry-After longer than this is not waited out: the call fails with it. Default 5 s.</summary>
        public TimeSpan MaxDelay { get; set; }

        /// <summary>No retries at all.</summary>
        public static RetryOptions None
        {
            get { return new RetryOptions { Retries = 0, BaseDelay = TimeSpan.Zero, MaxDelay = TimeSpan.Zero }; }
        }
    }

    public sealed class GameClientOptions
    {
        public GameClientOptions()
        {
            SessionKey = "game-backend.session";
            RefreshMarginSeconds = 30;
            DeviceSecret = true;
            Timeout = TimeSpan.FromSeconds(30);
            Deadline = TimeSpan.FromSeconds(30);
        }

        /// <summary>The backend's origin, e.g. "https://game.example.com"; the SDK adds /api/v1.</summary>
        public string BaseUrl { get; set; }

        /// <summary>A client key of the project (gb_client_…, ships in game builds). A server key is refused.</summary>
        public string ApiKey { get; set; }

        /// <summary>Where the session is kept. Default: PlayerPrefsSessionStore in Unity, MemorySessionStore elsewhere.</summary>
        public ISessionStore SessionStore { get; set; }

        /// <summary>The store key. Default "game-backend.session"; the device secret is kept under SessionKey + ".device".</summary>
        public string SessionKey { get; set; }

        /// <summary>Default: UnityWebRequestTransport in Unity, HttpClientTransport elsewhere.</summary>
        public IHttpTransport Transport { get; set; }

        /// <summary>Waits between retries. Default: UnityDelay in Unity, TaskDelay elsewhere.</summary>
        public IDelay Delay { get; set; }

        /// <summary>The time now (token expiry). Default: the system clock.</summary>
        public Func<DateTimeOffset> Clock { get; set; }

        /// <summary>Default: 3 retries, 200 ms doubling, at most 5 s. <see cref="RetryOptions.None"/> turns them off.</summary>
        public RetryOptions Retry { get; set; }

        /// <summary>Refresh this many seconds before the access token expires. Default 30.</summary>
        public int RefreshMarginSeconds { get; set; }

        /// <summary>
        /// Anonymous players that come back (default true): AnonymousAsync sends this device's secret (43
        /// random base64url characters, made once and kept in the store, also after logout), so the device
        /// signs in the same player again, and an anonymous session the server ended (a session copied to a
        /// second device and refreshed there) is signed in again once, transparently. False: every
        /// AnonymousAsync is a new player; nothing is recovered.
        /// </summary>
        public bool DeviceSecret { get; set; }

        /// <summary>Sent as X-Client-Version (the game's build). Default: Application.version in Unity, none elsewhere.</summary>
        public string ClientVersion { get; set; }

        /// <summary>Sent as X-Platform (ios, android, webgl, windows, macos, linux, …). Default: Unity's platform, else the OS.</summary>
        public string Platform { get; set; }

        /// <summary>How long one attempt may wait for its answer. Default 30 s; positive, or Timeout.InfiniteTimeSpan.</summary>
        public TimeSpan Timeout { get; set; }

        /// <summary>
        /// How long one call may take in all, its retries and the waits between them included (each
        /// attempt gets at most what is left). Past it the call throws GameApiException with Code
        /// <see cref="ErrorCodes.Timeout"/>. Default 30 s; positive, or Timeout.InfiniteTimeSpan;
        /// <see cref="CallOptions.Deadline"/> sets it per call.
        /// </summary>
        public TimeSpan Deadline { get; set; }

        /// <summary>
        /// Receives the SDK's log lines (level, message): each request and its outcome, retries, failures.
        /// Passwords, tokens, refresh tokens, device secrets, codes, receipts and the API key are replaced by
        /// "[redacted]" before a line gets here. Default none. In Unity:
        /// <c>Log = (level, message) =&gt; { if (level &gt;= GameLogLevel.Warning) Debug.LogWarning(message); }</c>.
        /// An exception it throws is ignored.
        /// </summary>
        public Action<GameLogLevel, string> Log { get; set; }
    }

    /// <summary>How much a log line of <see cref="GameClientOptions.Log"/> matters.</summary>
    public enum GameLogLevel
    {
        /// <summary>Each request as sent (headers and body, redacted) and each answer's body (redacted).</summary>
        Debug = 0,
        /// <summary>Each answer: method, path, status, time taken, request id.</summary>
        Info = 1,
        /// <summary>A retry: why, after how long.</summary>
        Warning = 2,
        /// <summary>A call that failed (the exception the caller gets).</summary>
        Error = 3,
    }

    /// <summary>
    /// Options of one call, the optional last parameter of every API method:
    /// <c>await client.Economy.PurchaseAsync("buy-potion", call: new CallOptions { IdempotencyKey = key })</c>.
    /// An object may be reused for several calls; the SDK never changes it.
    /// </summary>
    public sealed class CallOptions
    {
        /// <summary>
        /// For the calls that send an Idempotency-Key (Economy.AddAsync, SubtractAsync, PurchaseAsync,
        /// Leaderboards.SubmitAsync; ignored by the others): this key instead of a fresh one. Crash-safe
        /// purchases: make one with <see cref="GameClient.NewIdempotencyKey"/>, keep it (PlayerPrefs, a file)
        /// with what the player is buying before the call, pass it again after a restart or a failure, and
        /// drop it once the call answered; the server applies one key once (and answers its first result
        /// again for 24 hours), so the player never pays twice. 1–255 visible ASCII characters (no spaces);
        /// anything else throws ArgumentException and sends nothing. The key used (this one or the fresh
        /// one) is on the result's and the exception's IdempotencyKey.
        /// </summary>
        public string IdempotencyKey { get; set; }

        /// <summary>This call's overall deadline instead of <see cref="GameClientOptions.Deadline"/>; positive, or Timeout.InfiniteTimeSpan.</summary>
        public TimeSpan? Deadline { get; set; }

        /// <summary>
        /// At most this many sends of this call, whatever the reason to retry (1: sent once); default: the
        /// client's <see cref="RetryOptions.Retries"/> + 1, and answers of 503 SERVICE_UNAVAILABLE (reason password_checks_busy) retried
        /// until the deadline. At least 1.
        /// </summary>
        public int? MaxAttempts { get; set; }
    }

    /// <summary>What <see cref="GameClient.Retrying"/> tells about one retry, before its wait.</summary>
    public sealed class RetryEvent
    {
        /// <summary>The attempt about to be sent after the wait: 2 for the first retry.</summary>
        public int Attempt { get; internal set; }

        /// <summary>Why: the answer's error code (RATE_LIMITED, SERVICE_UNAVAILABLE, IDEMPOTENCY_IN_PROGRESS, …) or NETWORK_ERROR when no answer arrived.</summary>
        public string Reason { get; internal set; }

        /// <summary>The answer's HTTP status; 0 when no answer arrived.</summary>
        public int Status { get; internal set; }

        /// <summary>How long the SDK waits before the attempt.</summary>
        public TimeSpan Delay { get; internal set; }

        /// <summary>The request's method and path under /api/v1 ("POST /economy/purchase").</summary>
        public string Request { get; internal set; }

        public override string ToString()
        {
            return Request + ": attempt " + Attempt + " in " + ((long)Delay.TotalMilliseconds) + " ms after " + Reason + (Status != 0 ? " (" + Status + ")" : "");
        }
    }

    internal static class Platforms
    {
        /// <summary>The X-Platform value of the OS this process runs on, outside Unity.</summary>
        public static string OfThisProcess()
        {
            switch (Environment.OSVersion.Platform)
            {
                case PlatformID.Win32NT:
                case PlatformID.Win32Windows:
                case PlatformID.Win32S:
                case PlatformID.WinCE:
                    return "windows";
                case PlatformID.MacOSX:
                    return "macos";
                case PlatformID.Unix:
                    // Mono and .NET report macOS as Unix.
                    return Directory.Exists("/System/Library/CoreServices") ? "macos" : "linux";
                default:
                    return null;
            }
        }
    }
}

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

        /// <summary>How long one attempt may wait for its answer. Default 30 s.</summary>
        public TimeSpan Timeout { get; set; }
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

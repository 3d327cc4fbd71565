#if UNITY_5_3_OR_NEWER
using UnityEngine;

namespace GameBackend
{
    /// <summary>
    /// The client identification the SDK sends in Unity: X-Client-Version is the game's
    /// Application.version (Player Settings → Version), X-Platform the platform it runs on.
    /// Read them on the main thread (Unity's Application API is main-thread only).
    /// </summary>
    public static class UnityClientInfo
    {
        /// <summary>Application.version, e.g. "1.4.2".</summary>
        public static string Version
        {
            get { return Application.version; }
        }

        /// <summary>The X-Platform value of Application.platform: ios, android, webgl, windows, macos, linux, …</summary>
        public static string Platform
        {
            get { return PlatformName(Application.platform); }
        }

        /// <summary>
        /// ios, tvos, android, webgl, windows (editor, player and UWP), macos, linux, switch, ps4,
        /// ps5, xbox (Xbox One and Series); any other platform as its lower-cased enum name.
        /// </summary>
        public static string PlatformName(RuntimePlatform platform)
        {
            switch (platform)
            {
                case RuntimePlatform.IPhonePlayer: return "ios";
                case RuntimePlatform.tvOS: return "tvos";
                case RuntimePlatform.Android: return "android";
                case RuntimePlatform.WebGLPlayer: return "webgl";
                case RuntimePlatform.WindowsPlayer:
                case RuntimePlatform.WindowsEditor:
                case RuntimePlatform.WSAPlayerX86:
                case RuntimePlatform.WSAPlayerX64:
                case RuntimePlatform.WSAPlayerARM: return "windows";
                case RuntimePlatform.OSXPlayer:
                case RuntimePlatform.OSXEditor: return "macos";
                case RuntimePlatform.LinuxPlayer:
                case RuntimePlatform.LinuxEditor: return "linux";
                case RuntimePlatform.Switch: return "switch";
                case RuntimePlatform.PS4: return "ps4";
                case RuntimePlatform.PS5: return "ps5";
                case RuntimePlatform.GameCoreXboxOne:
                case RuntimePlatform.GameCoreXboxSeries: return "xbox";
                default: return platform.ToString().ToLowerInvariant();
            }
        }
    }
}
#endif

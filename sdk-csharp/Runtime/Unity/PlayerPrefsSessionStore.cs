#if UNITY_5_3_OR_NEWER
using System;
using System.Threading.Tasks;
using UnityEngine;

namespace GameBackend
{
    /// <summary>
    /// Keeps the session (and the anonymous player's device secret) in Unity's PlayerPrefs, saved
    /// to disk at once on every change. PlayerPrefs is main-thread only, like the client's calls.
    /// Where the values live: Windows registry, macOS/iOS preferences (plist, NSUserDefaults),
    /// Android SharedPreferences, Linux ~/.config/unity3d, WebGL the browser's IndexedDB.
    /// They are not encrypted: PlayerPrefs is per user, not a secret store.
    /// </summary>
    public sealed class PlayerPrefsSessionStore : ISessionStore
    {
        private static readonly Task Done = Task.FromResult(true);

        public Task<string> GetAsync(string key)
        {
            return Task.FromResult(PlayerPrefs.HasKey(key) ? PlayerPrefs.GetString(key) : null);
        }

        public Task SetAsync(string key, string value)
        {
            if (value == null) return RemoveAsync(key);
            PlayerPrefs.SetString(key, value);
            PlayerPrefs.Save();
            return Done;
        }

        public Task RemoveAsync(string key)
        {
            PlayerPrefs.DeleteKey(key);
            PlayerPrefs.Save();
            return Done;
        }
    }
}
#endif

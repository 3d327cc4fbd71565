#if UNITY_5_3_OR_NEWER
using System;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine;

namespace GameBackend
{
    /// <summary>
    /// Waits by yielding to Unity's player loop once per frame until the time has passed or the
    /// token fires: no Task.Delay (its timer needs threads that WebGL does not have) and no thread.
    /// Time is the real time since startup (not scaled, runs while the game is paused by
    /// Time.timeScale = 0). Await it on Unity's main thread, as the client does.
    /// </summary>
    public sealed class UnityDelay : IDelay
    {
        public async Task DelayAsync(TimeSpan delay, CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (delay <= TimeSpan.Zero) return;
            double deadline = Time.realtimeSinceStartupAsDouble + delay.TotalSeconds;
            while (Time.realtimeSinceStartupAsDouble < deadline)
            {
                await Task.Yield();
                cancellationToken.ThrowIfCancellationRequested();
            }
        }
    }
}
#endif

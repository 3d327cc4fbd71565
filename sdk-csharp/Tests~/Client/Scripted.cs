using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using GameBackend;

namespace GameBackend.Tests
{
    /// <summary>Answers from a script, in order, on a thread-pool thread (as a real socket would), and records each request.</summary>
    internal sealed class ScriptedTransport : IHttpTransport
    {
        public readonly ConcurrentQueue<Func<ApiRequest, ApiResponse>> Script = new ConcurrentQueue<Func<ApiRequest, ApiResponse>>();
        public readonly List<ApiRequest> Requests = new List<ApiRequest>();

        /// <summary>Answers for one "METHOD /path" (checked before the script's order).</summary>
        public readonly Dictionary<string, Func<ApiRequest, ApiResponse>> Routes = new Dictionary<string, Func<ApiRequest, ApiResponse>>();

        public ScriptedTransport On(string line, int status, string body)
        {
            Routes[line] = request => new ApiResponse { Status = status, Headers = new Dictionary<string, string>(), Body = body };
            return this;
        }

        public ScriptedTransport Then(int status, string body, string retryAfter = null)
        {
            Script.Enqueue(request =>
            {
                Dictionary<string, string> headers = new Dictionary<string, string>();
                if (retryAfter != null) headers["retry-after"] = retryAfter;
                return new ApiResponse { Status = status, Headers = headers, Body = body };
            });
            return this;
        }

        public readonly List<TimeSpan> Timeouts = new List<TimeSpan>();
        public Exception Refusal;
        /// <summary>Never answers: the attempt ends only when its token fires.</summary>
        public bool Hang;

        /// <summary>The header of each request sent, in order (null where absent).</summary>
        public List<string> HeaderOfEach(string name)
        {
            List<string> values = new List<string>();
            lock (Requests)
            {
                foreach (ApiRequest request in Requests)
                {
                    string value;
                    values.Add(request.Headers != null && request.Headers.TryGetValue(name, out value) ? value : null);
                }
            }
            return values;
        }

        public Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            lock (Requests)
            {
                Requests.Add(request);
                Timeouts.Add(timeout);
            }
            if (Refusal != null) throw Refusal;
            if (Hang)
            {
                // No answer ever, whatever the timeout: only the token ends the attempt.
                TaskCompletionSource<ApiResponse> never = new TaskCompletionSource<ApiResponse>();
                cancellationToken.Register(() => never.TrySetCanceled());
                return never.Task;
            }
            Func<ApiRequest, ApiResponse> next;
            if (Routes.TryGetValue(request.Method + " " + new Uri(request.Url).AbsolutePath, out next)) return Task.Run(() => next(request));
            if (!Script.TryDequeue(out next)) throw new InvalidOperationException("No scripted answer for " + request.Method + " " + request.Url);
            return Task.Run(() => next(request));
        }

        public List<string> Lines()
        {
            List<string> lines = new List<string>();
            lock (Requests)
            {
                foreach (ApiRequest request in Requests) lines.Add(request.Method + " " + new Uri(request.Url).AbsolutePath);
            }
            return lines;
        }
    }

    /// <summary>Records the waits asked for and returns at once, or waits for cancellation when told to.</summary>
    internal sealed class RecordingDelay : IDelay
    {
        public readonly List<TimeSpan> Waits = new List<TimeSpan>();
        public bool Hang;

        public Task DelayAsync(TimeSpan delay, CancellationToken cancellationToken)
        {
            lock (Waits) Waits.Add(delay);
            if (!Hang) return Task.FromResult(0);
            TaskCompletionSource<bool> never = new TaskCompletionSource<bool>();
            cancellationToken.Register(() => never.TrySetCanceled());
            return never.Task;
        }
    }
}

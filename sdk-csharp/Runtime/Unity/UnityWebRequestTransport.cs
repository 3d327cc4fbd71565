#if UNITY_5_3_OR_NEWER
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine.Networking;

namespace GameBackend
{
    /// <summary>
    /// The HTTP transport for Unity: one <see cref="UnityWebRequest"/> per attempt. Works in every
    /// player Unity builds, WebGL included (no threads, no System.Net). Call it from Unity's main
    /// thread, as the client does (it never leaves the caller's synchronisation context).
    /// An HTTP error status is an answer (returned); no answer at all (DNS, refused or reset
    /// connection, TLS failure, timeout) throws <see cref="IOException"/>; a fired token aborts the
    /// request and throws <see cref="OperationCanceledException"/>.
    /// </summary>
    public sealed class UnityWebRequestTransport : IHttpTransport
    {
        public Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            if (request == null) throw new ArgumentNullException("request");
            cancellationToken.ThrowIfCancellationRequested();

            var www = new UnityWebRequest(request.Url, request.Method);
            www.downloadHandler = new DownloadHandlerBuffer();
            string contentType = null;
            if (request.Headers != null)
            {
                foreach (var header in request.Headers)
                {
                    if (header.Value == null) continue;
                    if (string.Equals(header.Key, "Content-Type", StringComparison.OrdinalIgnoreCase)) contentType = header.Value;
                    www.SetRequestHeader(header.Key, header.Value);
                }
            }
            if (request.Body != null)
            {
                var upload = new UploadHandlerRaw(Encoding.UTF8.GetBytes(request.Body));
                upload.contentType = contentType ?? "application/json";
                www.uploadHandler = upload;
            }
            // Unity's timeout is whole seconds, 0 = none.
            if (timeout > TimeSpan.Zero && timeout != Timeout.InfiniteTimeSpan)
                www.timeout = (int)Math.Min(int.MaxValue, Math.Ceiling(timeout.TotalSeconds));

            UnityWebRequestAsyncOperation operation;
            try
            {
                // Throws at once for what no retry mends (Unity 2022.1+: "Insecure connection not allowed" for
                // http without "Allow downloads over HTTP"); the client does not resend it.
                operation = www.SendWebRequest();
            }
            catch (Exception)
            {
                www.Dispose();
                throw;
            }

            var done = new TaskCompletionSource<ApiResponse>();
            var context = SynchronizationContext.Current;
            var registration = default(CancellationTokenRegistration);
            if (cancellationToken.CanBeCanceled)
            {
                // Registered once the request is on its way (a token that already fired aborts it at once).
                // Abort on the thread the request was made on: UnityWebRequest is main-thread only.
                registration = cancellationToken.Register(() =>
                {
                    done.TrySetCanceled();
                    if (context == null || context == SynchronizationContext.Current) AbortQuietly(www);
                    else context.Post(state => AbortQuietly((UnityWebRequest)state), www);
                });
            }

            // Called at once when the operation has already completed.
            operation.completed += _ =>
            {
                registration.Dispose();
                try
                {
                    if (cancellationToken.IsCancellationRequested) done.TrySetCanceled();
                    else if (www.result == UnityWebRequest.Result.Success || www.result == UnityWebRequest.Result.ProtocolError)
                        done.TrySetResult(ToResponse(www));
                    else
                        done.TrySetException(new IOException("No answer from " + request.Method + " " + request.Url + ": " + (www.error ?? www.result.ToString())));
                }
                catch (Exception e)
                {
                    done.TrySetException(e);
                }
                finally
                {
                    www.Dispose();
                }
            };
            return done.Task;
        }

        private static ApiResponse ToResponse(UnityWebRequest www)
        {
            var headers = new Dictionary<string, string>();
            Dictionary<string, string> received = www.GetResponseHeaders();
            if (received != null)
            {
                foreach (var header in received)
                {
                    string name = header.Key.ToLowerInvariant();
                    string existing;
                    headers[name] = headers.TryGetValue(name, out existing) ? existing + ", " + header.Value : header.Value;
                }
            }
            byte[] data = www.downloadHandler != null ? www.downloadHandler.data : null;
            return new ApiResponse
            {
                Status = (int)www.responseCode,
                Headers = headers,
                Body = data == null ? "" : Encoding.UTF8.GetString(data),
            };
        }

        private static void AbortQuietly(UnityWebRequest www)
        {
            try { www.Abort(); }
            catch (Exception) { /* already finished and disposed */ }
        }
    }
}
#endif

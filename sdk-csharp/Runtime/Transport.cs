using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace GameBackend
{
    /// <summary>One HTTP request as the SDK makes it.</summary>
    public sealed class ApiRequest
    {
        public string Method { get; set; }
        public string Url { get; set; }
        /// <summary>Header names as the SDK writes them (X-API-Key, Authorization, Content-Type, …).</summary>
        public Dictionary<string, string> Headers { get; set; }
        /// <summary>The JSON body (UTF-8 on the wire), or null for none.</summary>
        public string Body { get; set; }
    }

    /// <summary>One HTTP answer, whatever its status.</summary>
    public sealed class ApiResponse
    {
        public int Status { get; set; }
        /// <summary>Header names in lower case; repeated headers joined with ", ".</summary>
        public Dictionary<string, string> Headers { get; set; }
        /// <summary>The body as text ("" when empty).</summary>
        public string Body { get; set; }

        public string Header(string name)
        {
            string value;
            return Headers != null && Headers.TryGetValue(name.ToLowerInvariant(), out value) ? value : null;
        }
    }

    /// <summary>
    /// Sends one request and returns the answer, whatever its status. Throws (any exception) when no
    /// answer arrived: connection refused or reset, DNS, the timeout; throws
    /// <see cref="OperationCanceledException"/> when <paramref name="cancellationToken"/> fired.
    /// <see cref="HttpClientTransport"/> (.NET, Mono, Unity standalone) and <c>UnityWebRequestTransport</c>
    /// (every Unity platform, WebGL included) implement it; a test can wrap either.
    /// </summary>
    public interface IHttpTransport
    {
        Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken);
    }

    /// <summary>Waits between retries. <see cref="TaskDelay"/> by default; <c>UnityDelay</c> in Unity (Task.Delay is unreliable in WebGL).</summary>
    public interface IDelay
    {
        Task DelayAsync(TimeSpan delay, CancellationToken cancellationToken);
    }

    public sealed class TaskDelay : IDelay
    {
        public Task DelayAsync(TimeSpan delay, CancellationToken cancellationToken)
        {
            return delay <= TimeSpan.Zero ? Task.FromResult(0) : Task.Delay(delay, cancellationToken);
        }
    }

    /// <summary>The transport on System.Net.Http's <see cref="HttpClient"/>.</summary>
    public sealed class HttpClientTransport : IHttpTransport, IDisposable
    {
        private readonly HttpClient client;
        private readonly bool owned;

        public HttpClientTransport()
        {
            client = new HttpClient();
            // The SDK times each attempt itself (GameClientOptions.Timeout).
            client.Timeout = Timeout.InfiniteTimeSpan;
            owned = true;
        }

        /// <summary>Uses <paramref name="client"/> (its handler, proxy settings and timeout); the caller disposes it.</summary>
        public HttpClientTransport(HttpClient client)
        {
            if (client == null) throw new ArgumentNullException("client");
            this.client = client;
        }

        public async Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
        {
            using (CancellationTokenSource attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
            using (HttpRequestMessage message = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                attempt.CancelAfter(timeout);
                string contentType = null;
                if (request.Headers != null)
                {
                    foreach (KeyValuePair<string, string> header in request.Headers)
                    {
                        if (string.Equals(header.Key, "Content-Type", StringComparison.OrdinalIgnoreCase)) contentType = header.Value;
                        else message.Headers.TryAddWithoutValidation(header.Key, header.Value);
                    }
                }
                if (request.Body != null)
                {
                    message.Content = new ByteArrayContent(Encoding.UTF8.GetBytes(request.Body));
                    message.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType ?? "application/json");
                }
                try
                {
                    using (HttpResponseMessage response = await client.SendAsync(message, HttpCompletionOption.ResponseContentRead, attempt.Token))
                    {
                        Dictionary<string, string> headers = new Dictionary<string, string>();
                        AddHeaders(headers, response.Headers);
                        if (response.Content != null) AddHeaders(headers, response.Content.Headers);
                        byte[] bytes = response.Content == null ? new byte[0] : await response.Content.ReadAsByteArrayAsync();
                        return new ApiResponse { Status = (int)response.StatusCode, Headers = headers, Body = Encoding.UTF8.GetString(bytes) };
                    }
                }
                catch (OperationCanceledException error)
                {
                    if (cancellationToken.IsCancellationRequested) throw;
                    throw new TimeoutException("No answer within " + timeout.TotalSeconds + " s.", error);
                }
            }
        }

        private static void AddHeaders(Dictionary<string, string> into, HttpHeaders headers)
        {
            foreach (KeyValuePair<string, IEnumerable<string>> header in headers)
            {
                string name = header.Key.ToLowerInvariant();
                string value = string.Join(", ", header.Value);
                string existing;
                into[name] = into.TryGetValue(name, out existing) ? existing + ", " + value : value;
            }
        }

        public void Dispose()
        {
            if (owned) client.Dispose();
        }
    }
}

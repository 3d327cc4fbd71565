using System;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>The codes the SDK itself produces, beside the contract's (generated in Models.g.cs).</summary>
    public static partial class ErrorCodes
    {
        /// <summary>No answer arrived (after the retries): connection refused or reset, DNS, a timeout.</summary>
        public const string NetworkError = "NETWORK_ERROR";

        /// <summary>The server answered something that is not the contract's JSON (a proxy's or captive portal's page).</summary>
        public const string UnexpectedResponse = "UNEXPECTED_RESPONSE";

        /// <summary>
        /// The call's deadline passed (<see cref="GameClientOptions.Deadline"/>, <see cref="CallOptions.Deadline"/>)
        /// before it was answered, its retries included. Status 0. A call with an Idempotency-Key may have
        /// been applied: send it again with the same key (the exception's IdempotencyKey).
        /// </summary>
        public const string Timeout = "TIMEOUT";
    }

    /// <summary>
    /// Every failed call throws this (or a subclass). Branch on <see cref="Code"/>, never on the message.
    /// A cancelled call throws <see cref="OperationCanceledException"/> instead.
    /// </summary>
    public class GameApiException : Exception
    {
        /// <summary>HTTP status; 0 when no answer arrived (<see cref="ErrorCodes.NetworkError"/>).</summary>
        public int Status { get; private set; }

        /// <summary>One of <see cref="ErrorCodes"/>.</summary>
        public string Code { get; private set; }

        /// <summary>The error's details as raw JSON ("{}" when there are none).</summary>
        public string DetailsJson { get; private set; }

        /// <summary>The server's X-Request-Id: quote it in bug reports, it finds the server's log line.</summary>
        public string RequestId { get; private set; }

        /// <summary>From Retry-After on 429 and 503.</summary>
        public int? RetryAfterSeconds { get; private set; }

        /// <summary>
        /// The Idempotency-Key the call sent (Economy.AddAsync, SubtractAsync, PurchaseAsync,
        /// Leaderboards.SubmitAsync), or null. After a failure that is not a refusal (NETWORK_ERROR,
        /// TIMEOUT, a 5xx) the change may have been applied: call again with
        /// <c>new CallOptions { IdempotencyKey = error.IdempotencyKey }</c> and it is applied at most once.
        /// </summary>
        public string IdempotencyKey { get; internal set; }

        public GameApiException(int status, string code, string message, string detailsJson = null, string requestId = null,
            int? retryAfterSeconds = null, Exception inner = null)
            : base(message, inner)
        {
            Status = status;
            Code = code;
            DetailsJson = string.IsNullOrEmpty(detailsJson) ? "{}" : detailsJson;
            RequestId = requestId;
            RetryAfterSeconds = retryAfterSeconds;
        }

        /// <summary>A copy of <paramref name="source"/>'s fields, for the subclasses.</summary>
        protected GameApiException(GameApiException source, string message)
            : this(source.Status, source.Code, message ?? source.Message, source.DetailsJson, source.RequestId, source.RetryAfterSeconds, source)
        {
            IdempotencyKey = source.IdempotencyKey;
        }

        /// <summary>A string member of the details ("reason", say), or null.</summary>
        public string DetailString(string name)
        {
            try
            {
                JsonNode details = JsonNode.Parse(DetailsJson);
                JsonNode value = details.Kind == JsonKind.Object ? details[name] : null;
                return value != null && value.Kind == JsonKind.String ? value.AsString() : null;
            }
            catch (JsonException)
            {
                return null;
            }
        }

        public override string ToString()
        {
            return GetType().Name + " " + Status + " " + Code + ": " + Message + (RequestId != null ? " (request " + RequestId + ")" : "");
        }
    }

    /// <summary>
    /// 412 VERSION_CONFLICT: someone else wrote first. The SDK reads the server's copy right after the
    /// conflict, so the game can keep the cloud's (use <see cref="CurrentJson"/>) or keep its own (write
    /// again with <c>IfVersion = CurrentVersion</c>).
    /// </summary>
    public sealed class VersionConflictException : GameApiException
    {
        /// <summary>False when the SDK could not read the server's copy (read it again yourself).</summary>
        public bool CurrentKnown { get; private set; }

        /// <summary>The server copy's value (data keys) or data (saves) as raw JSON; null when it no longer exists or is not known.</summary>
        public string CurrentJson { get; private set; }

        /// <summary>The server copy's version; null when it no longer exists or is not known.</summary>
        public long? CurrentVersion { get; private set; }

        /// <summary>For <c>Data.SetAsync</c>/<c>DeleteAsync</c>: the stored record.</summary>
        public DataRecord CurrentRecord { get; private set; }

        /// <summary>For <c>Saves.PutAsync</c>/<c>DeleteAsync</c>: the cloud save with its data and metadata.</summary>
        public SaveRecord CurrentSave { get; private set; }

        internal VersionConflictException(GameApiException conflict, bool known, DataRecord record, SaveRecord save)
            : base(conflict, null)
        {
            CurrentKnown = known;
            CurrentRecord = record;
            CurrentSave = save;
            if (record != null)
            {
                CurrentJson = record.Value;
                CurrentVersion = record.Version;
            }
            else if (save != null)
            {
                CurrentJson = save.Data;
                CurrentVersion = save.Version;
            }
        }
    }

    /// <summary>
    /// 409 RECEIPT_PENDING from <c>Economy.ValidateReceiptAsync</c>: the store has not been paid yet (Google
    /// Play's pending purchases, paid later in cash or approved by a parent). Nothing was granted. Show
    /// "waiting for payment", keep the receipt, and send the same receipt again later (on the next start, or
    /// when the store reports the purchase as paid): the server grants it once then.
    /// </summary>
    public sealed class ReceiptPendingException : GameApiException
    {
        internal ReceiptPendingException(GameApiException source)
            : base(source, null)
        {
        }
    }

    /// <summary>
    /// The call's session cannot be used any more. Either its refresh token was refused (revoked by a
    /// logout elsewhere, reuse detection, an operator, or 30 days old): the stored session is already
    /// cleared and <c>SessionChanged(null)</c> raised, so show sign-in. Or the session changed while the
    /// call waited (<c>DetailString("reason")</c> is "player-changed": another player signed in, whose
    /// session stands; "signed-out": a sign-out meanwhile): the call was not sent, and nothing else changed.
    /// </summary>
    public sealed class SessionEndedException : GameApiException
    {
        public SessionEndedException(int status, string code, string message, string detailsJson = null, string requestId = null, Exception inner = null)
            : base(status, code, message, detailsJson, requestId, null, inner)
        {
        }
    }
}

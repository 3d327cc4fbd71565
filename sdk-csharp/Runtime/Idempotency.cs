namespace GameBackend
{
    // The results of the calls that send an Idempotency-Key carry the key they sent (CallOptions.IdempotencyKey).

    public sealed partial class LeaderboardEntry
    {
        /// <summary>The Idempotency-Key Leaderboards.SubmitAsync sent (null on entries read otherwise).</summary>
        public string IdempotencyKey { get; set; }
    }

    public sealed partial class CurrencyChange
    {
        /// <summary>The Idempotency-Key Economy.AddAsync or SubtractAsync sent.</summary>
        public string IdempotencyKey { get; set; }
    }

    public sealed partial class PurchaseResult
    {
        /// <summary>The Idempotency-Key Economy.PurchaseAsync sent: the same key again answers this purchase, never a second one.</summary>
        public string IdempotencyKey { get; set; }
    }
}

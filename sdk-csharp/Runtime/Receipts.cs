using System;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>
    /// A real-money store purchase for <see cref="EconomyApi.ValidateReceiptAsync"/>: made with
    /// <see cref="Apple"/>, <see cref="GooglePlay"/> or <see cref="Steam"/>. The receipt is its own
    /// idempotency key: the server grants a store transaction once, and the same receipt again answers the
    /// first result (<c>Replayed</c> true), so keep it until the server has answered and send it again after
    /// any failure that is not a refusal (a network error, a 5xx, STORE_UNAVAILABLE).
    /// </summary>
    public sealed class Receipt
    {
        internal readonly ReceiptBody Body;

        private Receipt(ReceiptBody body)
        {
            Body = body;
        }

        /// <summary>One of the <see cref="GameBackend.Store"/> constants.</summary>
        public string Store
        {
            get { return Body.Store; }
        }

        /// <summary>
        /// An App Store purchase made with StoreKit 2: <c>Product.purchase()</c> answers
        /// <c>.success(VerificationResult&lt;Transaction&gt;)</c>; pass its <c>jwsRepresentation</c> (the signed
        /// transaction, a JWS of three dot-separated parts, verified or not: the server checks it against
        /// Apple's root). Call <c>transaction.finish()</c> only after the server answered. In Unity IAP 5
        /// (StoreKit 2) pass the order's <c>Info.Apple.jwsRepresentation</c>; Unity IAP 4 and older use
        /// StoreKit 1, whose <c>Product.receipt</c> carries the app receipt (a base64 blob in its Payload),
        /// which the server refuses with RECEIPT_INVALID.
        /// </summary>
        public static Receipt Apple(string signedTransaction)
        {
            Required(signedTransaction, "signedTransaction");
            return new Receipt(new ReceiptBody { Store = GameBackend.Store.Apple, SignedTransaction = signedTransaction });
        }

        /// <summary>
        /// A Google Play purchase made with Play Billing: <c>BillingClient.launchBillingFlow</c>, then in
        /// <c>onPurchasesUpdated</c> the <c>Purchase</c>'s <c>getProducts()[0]</c> and <c>getPurchaseToken()</c>.
        /// Do not consume or acknowledge it on the device: the server does once it has granted (Google refunds a
        /// purchase nobody acknowledged within three days, so keep sending it until the server answers).
        /// </summary>
        public static Receipt GooglePlay(string productId, string purchaseToken)
        {
            Required(productId, "productId");
            Required(purchaseToken, "purchaseToken");
            return new Receipt(new ReceiptBody { Store = GameBackend.Store.Google, ProductId = productId, PurchaseToken = purchaseToken });
        }

        /// <summary>
        /// A Steam microtransaction the player approved: the <c>OrderId</c> of
        /// <see cref="EconomyApi.StartSteamOrderAsync"/>, once Steamworks' <c>MicroTxnAuthorizationResponse_t</c>
        /// arrived with <c>m_bAuthorized</c> set (its <c>m_ulOrderID</c> is the same order id).
        /// </summary>
        public static Receipt Steam(string orderId)
        {
            Required(orderId, "orderId");
            return new Receipt(new ReceiptBody { Store = GameBackend.Store.Steam, OrderId = orderId });
        }

        private static void Required(string value, string name)
        {
            if (string.IsNullOrEmpty(value)) throw new ArgumentException(name + " is required", name);
        }

        internal JsonNode ToJson()
        {
            return Body.ToJson();
        }
    }
}

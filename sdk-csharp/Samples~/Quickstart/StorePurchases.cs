using System;
using System.Threading.Tasks;
using GameBackend;
using GameBackend.Json;
using UnityEngine;

/// <summary>
/// Real-money purchases redeemed with the Game Backend, as a game wires them to its store plugin.
/// This file references no store plugin (the sample has to compile without one): the comments show
/// the Unity IAP 5 / Steamworks.NET calls each method follows. The rule for every store: grant
/// nothing on the device; finish, consume or acknowledge nothing before the server answered; keep a
/// purchase the server did not answer for (network, STORE_UNAVAILABLE, RECEIPT_PENDING) and send it
/// again later, which is safe: the server grants a store transaction once.
/// </summary>
public static class StorePurchases
{
    /// <summary>What the game does with a purchase once the server answered.</summary>
    public enum Outcome
    {
        /// <summary>Granted now or before (a replay): finish / confirm the purchase with the store plugin.</summary>
        Granted,
        /// <summary>Not paid yet (RECEIPT_PENDING): show "waiting for payment", keep it, try again later.</summary>
        Pending,
        /// <summary>No answer (network, 5xx, STORE_UNAVAILABLE after the retries): keep it, try again later.</summary>
        TryLater,
        /// <summary>Refused (RECEIPT_INVALID, RECEIPT_CANCELLED, RECEIPT_ALREADY_USED, …): nothing granted; tell the player.</summary>
        Refused,
    }

    // Unity IAP 5 (StoreKit 2 on iOS), in your IAP listener:
    //   void OnPurchasePending(PendingOrder order) {
    //       string jws = order.Info.Apple?.jwsRepresentation;                 // App Store
    //       var outcome = await StorePurchases.RedeemAsync(client, Receipt.Apple(jws));
    //       if (outcome == StorePurchases.Outcome.Granted) storeController.ConfirmPurchase(order);
    //   }
    // On Google Play, build the receipt from Product.receipt with GooglePlayReceipt below.
    // Unity IAP 4 and older use StoreKit 1 on iOS: their receipt is not a signed transaction and is refused.

    /// <summary>Sends the receipt and says what to do next. Balances and inventory: <c>result.Grant</c>.</summary>
    public static async Task<Outcome> RedeemAsync(GameClient client, Receipt receipt)
    {
        try
        {
            ReceiptResult result = await client.Economy.ValidateReceiptAsync(receipt);
            Debug.Log("Granted " + result.ProductId + " x" + result.Quantity + (result.Replayed ? " (already granted before)" : ""));
            return Outcome.Granted;
        }
        catch (ReceiptPendingException)
        {
            return Outcome.Pending;
        }
        catch (GameApiException error)
        {
            Debug.LogWarning("Purchase not granted: " + error.Code + " (request " + error.RequestId + ")");
            bool later = error.Status == 0 || error.Status >= 500 || error.Code == ErrorCodes.RateLimited;
            return later ? Outcome.TryLater : Outcome.Refused;
        }
    }

    /// <summary>
    /// Google Play's receipt from Unity IAP's <c>Product.receipt</c>: a JSON object whose "Payload" is JSON
    /// text whose "json" is Google's purchase data (INAPP_PURCHASE_DATA) as text, holding "productId" and
    /// "purchaseToken". Don't consume the product in the plugin: the server consumes or acknowledges it.
    /// </summary>
    public static Receipt GooglePlayReceipt(string unityReceipt)
    {
        JsonNode payload = JsonNode.Parse(JsonNode.Parse(unityReceipt)["Payload"].AsString());
        JsonNode purchase = JsonNode.Parse(payload["json"].AsString());
        return Receipt.GooglePlay(purchase["productId"].AsString(), purchase["purchaseToken"].AsString());
    }

    // Steam (Steamworks.NET), the microtransaction:
    //   SteamOrder order = await client.Economy.StartSteamOrderAsync("gems-500", SteamUser.GetSteamID().ToString());
    //   // Steam shows the overlay; keep order.OrderId. Then, in your Callback<MicroTxnAuthorizationResponse_t>:
    //   if (response.m_bAuthorized == 1) await StorePurchases.RedeemAsync(client, Receipt.Steam(response.m_ulOrderID.ToString()));
}

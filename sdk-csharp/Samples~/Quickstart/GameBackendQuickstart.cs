using System;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using GameBackend;
using UnityEngine;

/// <summary>
/// The Game Backend quickstart as a MonoBehaviour: add it to any GameObject, set the base URL and
/// the client key in the inspector (the demo's key is "apiKey" in the server's .data/demo.json),
/// press Play and read the Console. It plays the sample game's loop once: sign in (or restore the
/// session kept in PlayerPrefs), settings, a cloud save with "keep cloud / keep local", a score
/// with the players around it, a purchase.
/// Every await continues on Unity's main thread, so Unity APIs are safe between the calls.
/// </summary>
public sealed class GameBackendQuickstart : MonoBehaviour
{
    [Header("Server")]
    [Tooltip("The server's origin, without /api/v1 (an Android device or emulator cannot reach your computer as localhost).")]
    [SerializeField] private string baseUrl = "http://localhost:3000";

    /// <summary>Where the key of a purchase not answered yet is kept (one pending purchase at a time here).</summary>
    private const string PendingPurchaseKey = "game-backend.pending-purchase";

    [Tooltip("A client key (gb_client_…). Never ship a server key (gb_server_…) in a game.")]
    [SerializeField] private string clientKey = "";

    [Header("Demo content")]
    [SerializeField] private string leaderboardId = "high-scores";
    [SerializeField] private string purchaseId = "buy-potion";

    private GameClient client;
    private readonly CancellationTokenSource stopping = new CancellationTokenSource();

    [Serializable]
    private sealed class Settings
    {
        public float music = 0.5f;
        public string difficulty = "normal";
    }

    [Serializable]
    private sealed class SaveState
    {
        public int level = 1;
        public int hp = 100;
    }

    private async void Start()
    {
        client = new GameClient(new GameClientOptions
        {
            BaseUrl = baseUrl,
            ApiKey = clientKey,
            SessionStore = new PlayerPrefsSessionStore(), // the session survives a restart of the game
        });
        client.SessionChanged += session =>
            Debug.Log(session == null ? "Signed out" : "Session for player " + session.PlayerId);

        CancellationToken ct = stopping.Token; // cancelled in OnDestroy: no call outlives this object
        try
        {
            // 1. Restore the stored session, or sign in a new anonymous player.
            await client.ReadyAsync(ct);
            if (client.Session == null)
            {
                Session session = await client.Auth.AnonymousAsync(ct);
                Debug.Log("Signed in a new anonymous player: " + session.PlayerId);
            }
            else
            {
                Debug.Log("Restored the session of " + client.Session.PlayerId);
            }

            // 2. Settings: player data, any JSON the game serialises (here with JsonUtility).
            DataRecord settings = await client.Data.SetAsync("settings", JsonUtility.ToJson(new Settings()), null, ct);
            Debug.Log("settings version " + settings.Version + ": " + settings.Value);

            // 3. A cloud save, written only over the version this device last saw.
            await SaveAsync(new SaveState { level = 4, hp = 37 }, ct);

            // 4. A score, and the players just above and below it.
            LeaderboardEntry submitted = await client.Leaderboards.SubmitAsync(leaderboardId, UnityEngine.Random.Range(0, 10000), null, ct);
            LeaderboardEntry mine = await client.Leaderboards.MeAsync(leaderboardId, 2, ct);
            Debug.Log("score " + submitted.Score.ToString(CultureInfo.InvariantCulture) + ", rank " + mine.Rank);
            foreach (LeaderboardEntry above in mine.Above) Debug.Log("  above: #" + above.Rank + " " + above.Score.ToString(CultureInfo.InvariantCulture));
            foreach (LeaderboardEntry below in mine.Below) Debug.Log("  below: #" + below.Rank + " " + below.Score.ToString(CultureInfo.InvariantCulture));

            // 5. A purchase: 10 coins for a potion. Its Idempotency-Key is kept in PlayerPrefs until an answer
            //    arrives, so a purchase interrupted by a crash or a quit is sent again with the same key on the
            //    next start and is never bought twice.
            string key = PlayerPrefs.GetString(PendingPurchaseKey, "");
            if (key == "")
            {
                key = GameClient.NewIdempotencyKey();
                PlayerPrefs.SetString(PendingPurchaseKey, key);
                PlayerPrefs.Save();
            }
            try
            {
                PurchaseResult bought = await client.Economy.PurchaseAsync(purchaseId, 1, ct, new CallOptions { IdempotencyKey = key });
                PlayerPrefs.DeleteKey(PendingPurchaseKey);
                Debug.Log("bought " + purchaseId + ", transaction " + bought.TransactionId);
            }
            catch (GameApiException e) when (e.Code == ErrorCodes.InsufficientFunds)
            {
                PlayerPrefs.DeleteKey(PendingPurchaseKey); // refused: nothing was spent
                Debug.Log("not enough coins for " + purchaseId);
            }
            foreach (CurrencyBalance currency in await client.Economy.CurrenciesAsync(ct))
                Debug.Log("  " + currency.Id + ": " + currency.Balance);
        }
        catch (GameApiException e)
        {
            // Status 0: no answer (offline, wrong URL, timeout). Code: ErrorCodes.*. Quote RequestId in bug reports.
            Debug.LogError("Game Backend: " + e.Status + " " + e.Code + " " + e.Message + " (request " + e.RequestId + ")");
        }
        catch (OperationCanceledException)
        {
            // The GameObject was destroyed while a call was in flight.
        }
    }

    /// <summary>Writes slot-1; on a conflict with another device keeps the save that got further.</summary>
    private async Task SaveAsync(SaveState state, CancellationToken ct)
    {
        const string slot = "slot-1";
        // The cloud version this device last loaded or wrote, per player (PlayerPrefs: a device-local value).
        string versionKey = "quickstart." + client.Session.PlayerId + "." + slot + ".version";
        long? seen = PlayerPrefs.HasKey(versionKey) ? long.Parse(PlayerPrefs.GetString(versionKey), CultureInfo.InvariantCulture) : (long?)null;
        string metaJson = "{\"label\":\"Level " + state.level + "\"}";
        SaveRecord written;
        try
        {
            written = await client.Saves.PutAsync(slot, JsonUtility.ToJson(state),
                new SavePutOptions { IfVersion = seen, CreateOnly = seen == null, MetaJson = metaJson }, ct);
        }
        catch (VersionConflictException conflict)
        {
            // Another device (or another install) wrote first. Show both to the player in a real game.
            SaveRecord cloud = conflict.CurrentSave; // null when the save was deleted meanwhile
            SaveState cloudState = cloud != null && cloud.Data != null ? JsonUtility.FromJson<SaveState>(cloud.Data) : null;
            if (cloudState != null && cloudState.level >= state.level)
            {
                Debug.Log("Keep cloud: level " + cloudState.level + " (version " + cloud.Version + ")");
                written = cloud;
            }
            else
            {
                Debug.Log("Keep local: overwriting the cloud copy just seen");
                written = await client.Saves.PutAsync(slot, JsonUtility.ToJson(state),
                    new SavePutOptions { IfVersion = conflict.CurrentVersion, CreateOnly = conflict.CurrentVersion == null, MetaJson = metaJson }, ct);
            }
        }
        PlayerPrefs.SetString(versionKey, written.Version.ToString(CultureInfo.InvariantCulture));
        PlayerPrefs.Save();
        Debug.Log(slot + " at version " + written.Version);
    }

    private void OnDestroy()
    {
        stopping.Cancel();
    }
}

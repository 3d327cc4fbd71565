using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>What the API classes share: their core and whether their calls retry.</summary>
    public abstract class ApiBase
    {
        internal readonly ClientCore Core;
        internal readonly bool Retries;

        internal ApiBase(ClientCore core, bool retries)
        {
            Core = core;
            Retries = retries;
        }

        internal Task<Answer> Send(string method, string path, JsonNode body, AuthMode auth, bool resendable, CallContext call,
            CancellationToken cancellationToken, Dictionary<string, string> headers = null)
        {
            return Core.SendAsync(new RequestSpec { Method = method, Path = path, Body = body, Auth = auth, Resendable = resendable, Headers = headers },
                call, cancellationToken);
        }

        /// <summary>One logical call with <paramref name="options"/>: its deadline starts now.</summary>
        internal CallContext Begin(CallOptions options)
        {
            return Core.NewCall(options, Retries);
        }

        /// <summary>
        /// A call that sends an Idempotency-Key: the caller's (CallOptions.IdempotencyKey) or a fresh one,
        /// the same on every retry, so a lost answer never spends or counts twice. The key is on the result
        /// (<paramref name="stamp"/>) and on any GameApiException.
        /// </summary>
        internal async Task<T> SendIdempotent<T>(string path, JsonNode body, CallOptions options, CancellationToken cancellationToken,
            Func<JsonNode, T> parse, Action<T, string> stamp)
        {
            CallContext call = Core.NewCall(options, Retries, true);
            try
            {
                Answer answer = await Send("POST", path, body, AuthMode.Player, true, call, cancellationToken,
                    new Dictionary<string, string> { { "Idempotency-Key", call.IdempotencyKey } });
                T result = AnswerReader.Read(answer, parse);
                stamp(result, call.IdempotencyKey);
                return result;
            }
            catch (GameApiException error)
            {
                if (error.IdempotencyKey == null) error.IdempotencyKey = call.IdempotencyKey;
                throw;
            }
        }

        internal static Dictionary<string, string> VersionHeaders(long? ifVersion, bool createOnly)
        {
            if (ifVersion.HasValue) return new Dictionary<string, string> { { "If-Match", "\"" + ifVersion.Value.ToString(CultureInfo.InvariantCulture) + "\"" } };
            if (createOnly) return new Dictionary<string, string> { { "If-None-Match", "*" } };
            return null;
        }

        internal static string Seg(string name, string value)
        {
            return ClientCore.Segment(name, value);
        }

        internal static string Query(params object[] pairs)
        {
            string query = "";
            for (int i = 0; i + 1 < pairs.Length; i += 2)
            {
                if (pairs[i + 1] == null) continue;
                string value = Convert.ToString(pairs[i + 1], CultureInfo.InvariantCulture);
                query += (query.Length == 0 ? "?" : "&") + Uri.EscapeDataString((string)pairs[i]) + "=" + Uri.EscapeDataString(value);
            }
            return query;
        }

        /// <summary>
        /// A 412 becomes a VersionConflictException carrying the server's copy, read right after the
        /// conflict: none when it no longer exists, unknown when it could not be read.
        /// </summary>
        internal async Task<Answer> WithConflictCopy(Func<Task<Answer>> write, Func<Task<Answer>> readCurrent, bool isSave)
        {
            GameApiException conflict = null;
            try
            {
                return await write();
            }
            catch (GameApiException error)
            {
                if (error.Code != ErrorCodes.VersionConflict || error is VersionConflictException) throw;
                conflict = error;
            }
            bool known = readCurrent != null;
            DataRecord record = null;
            SaveRecord save = null;
            if (readCurrent != null)
            {
                try
                {
                    Answer current = await readCurrent();
                    if (isSave) save = AnswerReader.Read(current, SaveRecord.FromJson);
                    else record = AnswerReader.Read(current, DataRecord.FromJson);
                }
                catch (GameApiException error)
                {
                    known = error.Code == ErrorCodes.KeyNotFound || error.Code == ErrorCodes.SaveNotFound;
                }
                catch (OperationCanceledException)
                {
                    // The call was cancelled while the SDK read the copy: a cancelled call says so.
                    throw;
                }
                catch (Exception)
                {
                    known = false;
                }
            }
            throw new VersionConflictException(conflict, known, record, save);
        }
    }

    public sealed class AuthApi : ApiBase, IAuthApi
    {
        internal AuthApi(ClientCore core, bool retries) : base(core, retries) { }

        /// <summary>
        /// Signs in this device's anonymous player: a new one the first time, the same one on later calls
        /// (also after logout) through the device secret. Upgrade it with RegisterAsync or IdpAsync to keep
        /// progress on other devices.
        /// </summary>
        public async Task<Session> AnonymousAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return await Core.SignInAsync(await Core.AnonymousAsync(Begin(call), cancellationToken));
        }

        /// <summary>Forgets this device's secret (not the session): the next AnonymousAsync creates a new player.</summary>
        public Task ForgetDeviceAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return Core.ForgetDeviceAsync(cancellationToken);
        }

        /// <summary>
        /// Creates an e-mail account; while signed in as a player without an e-mail (an anonymous one), links
        /// the e-mail to that player instead (same PlayerId). Not resent after a lost answer.
        /// </summary>
        public async Task<Session> RegisterAsync(string email, string password, string displayName = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new RegisterBody { Email = email, Password = password, DisplayName = displayName }.ToJson();
            return await Core.SignInAsync(await Send("POST", "/auth/email/register", body, AuthMode.Optional, false, Begin(call), cancellationToken));
        }

        public async Task<Session> LoginAsync(string email, string password, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new LoginBody { Email = email, Password = password }.ToJson();
            return await Core.SignInAsync(await Send("POST", "/auth/email/login", body, AuthMode.None, true, Begin(call), cancellationToken));
        }

        /// <summary>Signs in with an identity provider's ID token; while signed in, links that identity to the player.</summary>
        public async Task<Session> IdpAsync(string provider, string token, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new IdpBody { Provider = provider, Token = token }.ToJson();
            return await Core.SignInAsync(await Send("POST", "/auth/idp", body, AuthMode.Optional, true, Begin(call), cancellationToken));
        }

        /// <summary>Rotates the tokens now (calls do this by themselves when needed).</summary>
        public async Task<Session> RefreshAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            await Core.ReadyAsync(cancellationToken);
            return await Core.RefreshAsync(null, cancellationToken);
        }

        /// <summary>
        /// Ends the session on the server and forgets it here. A session the server had already ended counts
        /// as signed out; a network error throws (the server's session lives on) but the local session is
        /// forgotten all the same. The device secret stays: AnonymousAsync signs the same player in again.
        /// </summary>
        public Task LogoutAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return Core.LogoutAsync(Begin(call), cancellationToken);
        }

        /// <summary>
        /// E-mails a six-digit reset code to the address if it has an account; the answer is the same either
        /// way (nothing tells whether the address is registered).
        /// </summary>
        public async Task RequestPasswordResetAsync(string email, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            await Send("POST", "/auth/email/password-reset", new PasswordResetBody { Email = email }.ToJson(), AuthMode.None, true, Begin(call), cancellationToken);
        }

        /// <summary>Sets a new password with the e-mailed code and signs in; the player's other sessions end.</summary>
        public async Task<Session> ConfirmPasswordResetAsync(string email, string code, string newPassword,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new PasswordResetConfirmBody { Email = email, Code = code, Password = newPassword }.ToJson();
            return await Core.SignInAsync(await Send("POST", "/auth/email/password-reset/confirm", body, AuthMode.None, false, Begin(call), cancellationToken));
        }

        /// <summary>Confirms the player's e-mail address with the mailed code; answers the profile (EmailVerified true).</summary>
        public async Task<PlayerProfile> VerifyEmailAsync(string code, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            Answer answer = await Send("POST", "/auth/email/verify", new VerifyEmailBody { Code = code }.ToJson(), AuthMode.Player, false, Begin(call), cancellationToken);
            return AnswerReader.Read(answer, PlayerProfile.FromJson);
        }

        /// <summary>Mails a new verification code (while the address is not verified).</summary>
        public async Task ResendVerificationAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            await Send("POST", "/auth/email/verify/resend", null, AuthMode.Player, true, Begin(call), cancellationToken);
        }
    }

    public sealed class PlayersApi : ApiBase, IPlayersApi
    {
        internal PlayersApi(ClientCore core, bool retries) : base(core, retries) { }

        /// <summary>The signed-in player's own profile (HasEmail, EmailVerified, Providers, LastLoginAt set).</summary>
        public async Task<PlayerProfile> MeAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.Read(await Send("GET", "/players/me", null, AuthMode.Player, true, Begin(call), cancellationToken), PlayerProfile.FromJson);
        }

        /// <summary>Sets (or with null clears) the display name.</summary>
        public async Task<PlayerProfile> UpdateAsync(string displayName, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new PatchProfileBody { DisplayName = displayName }.ToJson();
            return AnswerReader.Read(await Send("PATCH", "/players/me", body, AuthMode.Player, true, Begin(call), cancellationToken), PlayerProfile.FromJson);
        }

        /// <summary>Another player's profile as others see it.</summary>
        public async Task<PlayerProfile> GetAsync(string playerId, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.Read(await Send("GET", "/players/" + Seg("playerId", playerId), null, AuthMode.Player, true, Begin(call), cancellationToken),
                PlayerProfile.FromJson);
        }

        /// <summary>
        /// Deletes the signed-in player and everything they own, then forgets the session here. An e-mail
        /// account passes its password (a wrong one: INVALID_CREDENTIALS, nothing changes); an anonymous one
        /// passes none. Not resent after a lost answer.
        /// </summary>
        public async Task DeleteAccountAsync(string password = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            await Send("DELETE", "/players/me", new DeleteAccountBody { Password = password }.ToJson(), AuthMode.Player, false, Begin(call), cancellationToken);
            await Core.SetSessionAsync(null);
        }

        /// <summary>Everything the project holds about the signed-in player, as one JSON document (PlayerExport.Json).</summary>
        public async Task<PlayerExport> ExportAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.Read(await Send("GET", "/players/me/export", null, AuthMode.Player, true, Begin(call), cancellationToken), PlayerExport.FromJson);
        }

        /// <summary>
        /// Reports another player to the project's moderators with one of the project's report reasons
        /// (default "cheating", "abuse", "offensive_name", "spam", "other") and an optional note (at most 500
        /// characters). Reporting the same player again while the report is open updates it (same Id), so a
        /// lost answer is simply sent again. Throws GameApiException: 400 CANNOT_REPORT_SELF, 400
        /// VALIDATION_ERROR (an unknown reason), 404 PLAYER_NOT_FOUND, 429 RATE_LIMITED (too many reports
        /// lately; RetryAfterSeconds says when to try again).
        /// </summary>
        public async Task<ReportAccepted> ReportAsync(string playerId, string reason, string note = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new ReportPlayerBody { Reason = reason, Note = note }.ToJson();
            Answer answer = await Send("POST", "/players/" + Seg("playerId", playerId) + "/report", body, AuthMode.Player, true, Begin(call), cancellationToken);
            return AnswerReader.Read(answer, ReportAccepted.FromJson);
        }
    }

    /// <summary>Options of <see cref="DataApi.SetAsync"/>.</summary>
    public sealed class DataSetOptions
    {
        /// <summary>Write only if the stored version is this one (If-Match); otherwise VersionConflictException.</summary>
        public long? IfVersion { get; set; }
        /// <summary>Write only if nothing is stored yet (If-None-Match: *).</summary>
        public bool CreateOnly { get; set; }
        /// <summary>One of <see cref="GameBackend.Visibility"/>; default private on create, unchanged on update.</summary>
        public string Visibility { get; set; }
    }

    /// <summary>Up to 100 writes and deletes for <see cref="DataApi.BatchAsync"/>, applied all or nothing.</summary>
    public sealed class DataBatch
    {
        internal readonly PatchPlayerDataBody Body = new PatchPlayerDataBody();
        internal bool Resendable = true;

        /// <summary>Writes <paramref name="valueJson"/> (raw JSON) to the key; with <paramref name="version"/>, only over that version.</summary>
        public DataBatch Set(string key, string valueJson, long? version = null, string visibility = null)
        {
            if (Body.Set == null) Body.Set = new Dictionary<string, PatchPlayerDataBody.SetOp>();
            Body.Set[key] = new PatchPlayerDataBody.SetOp { Value = valueJson, Version = version, Visibility = visibility };
            if (version.HasValue) Resendable = false;
            return this;
        }

        public DataBatch Delete(string key)
        {
            if (Body.Delete == null) Body.Delete = new List<string>();
            Body.Delete.Add(key);
            Resendable = false;
            return this;
        }
    }

    public sealed class DataApi : ApiBase, IDataApi
    {
        internal DataApi(ClientCore core, bool retries) : base(core, retries) { }

        private Task<Answer> Read(string key, string playerId, CallContext call, CancellationToken cancellationToken)
        {
            return Send("GET", "/players/" + Seg("playerId", playerId ?? "me") + "/data/" + Seg("key", key), null, AuthMode.Player, true, call, cancellationToken);
        }

        /// <summary>One key of the player's data, or of another player's public data with <paramref name="playerId"/>.</summary>
        public async Task<DataRecord> GetAsync(string key, string playerId = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.Read(await Read(key, playerId, Begin(call), cancellationToken), DataRecord.FromJson);
        }

        public async Task<List<DataRecord>> ListAsync(string playerId = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            Answer answer = await Send("GET", "/players/" + Seg("playerId", playerId ?? "me") + "/data", null, AuthMode.Player, true, Begin(call), cancellationToken);
            return AnswerReader.ReadList(answer, DataRecord.FromJson);
        }

        /// <summary>
        /// Writes <paramref name="valueJson"/>, the value as raw JSON ("{\"volume\":3}", "42", "\"text\""), as the
        /// game serialises it (JsonUtility, Newtonsoft, by hand). Malformed JSON throws ArgumentException and
        /// sends nothing. A conditional write is not resent after a lost answer.
        /// </summary>
        public async Task<DataRecord> SetAsync(string key, string valueJson, DataSetOptions options = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/players/me/data/" + Seg("key", key);
            long? ifVersion = options != null ? options.IfVersion : null;
            bool createOnly = options != null && options.CreateOnly;
            JsonNode body = new PutPlayerDataBody { Value = valueJson, Visibility = options != null ? options.Visibility : null }.ToJson();
            CallContext context = Begin(call);
            Answer answer = await WithConflictCopy(
                () => Send("PUT", path, body, AuthMode.Player, !ifVersion.HasValue && !createOnly, context, cancellationToken, VersionHeaders(ifVersion, createOnly)),
                () => Read(key, null, context, cancellationToken), false);
            return AnswerReader.Read(answer, DataRecord.FromJson);
        }

        /// <summary>Deletes the key; with <paramref name="ifVersion"/>, only that version. Not resent after a lost answer.</summary>
        public async Task DeleteAsync(string key, long? ifVersion = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/players/me/data/" + Seg("key", key);
            CallContext context = Begin(call);
            await WithConflictCopy(
                () => Send("DELETE", path, null, AuthMode.Player, false, context, cancellationToken, VersionHeaders(ifVersion, false)),
                () => Read(key, null, context, cancellationToken), false);
        }

        /// <summary>All writes and deletes or none; any version mismatch fails the batch with every conflict in DetailsJson.</summary>
        public async Task<List<DataRecord>> BatchAsync(DataBatch batch, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            if (batch == null) throw new ArgumentNullException("batch");
            JsonNode body = batch.Body.ToJson();
            CallContext context = Begin(call);
            Answer answer = await WithConflictCopy(
                () => Send("PATCH", "/players/me/data", body, AuthMode.Player, batch.Resendable, context, cancellationToken), null, false);
            return AnswerReader.ReadList(answer, DataRecord.FromJson);
        }
    }

    /// <summary>Options of <see cref="SavesApi.PutAsync"/>.</summary>
    public sealed class SavePutOptions
    {
        /// <summary>Write only over this version (If-Match); otherwise VersionConflictException with the cloud save.</summary>
        public long? IfVersion { get; set; }
        /// <summary>Write only if the slot is empty (If-None-Match: *).</summary>
        public bool CreateOnly { get; set; }
        /// <summary>A small JSON object shown in slot pickers (label, playtime, device…), raw JSON.</summary>
        public string MetaJson { get; set; }
    }

    public sealed class SavesApi : ApiBase, ISavesApi
    {
        internal SavesApi(ClientCore core, bool retries) : base(core, retries) { }

        private Task<Answer> Read(string key, CallContext call, CancellationToken cancellationToken)
        {
            return Send("GET", "/saves/" + Seg("key", key), null, AuthMode.Player, true, call, cancellationToken);
        }

        /// <summary>The player's save slots, without their data.</summary>
        public async Task<List<SaveRecord>> ListAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.ReadList(await Send("GET", "/saves", null, AuthMode.Player, true, Begin(call), cancellationToken), SaveRecord.FromJson);
        }

        /// <summary>One save with its data (SaveRecord.Data, raw JSON).</summary>
        public async Task<SaveRecord> GetAsync(string key, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.Read(await Read(key, Begin(call), cancellationToken), SaveRecord.FromJson);
        }

        /// <summary>
        /// Writes the save (<paramref name="dataJson"/>: raw JSON). On a conflict, the VersionConflictException's
        /// CurrentSave is the cloud save with its data. The answer carries the new version, not the data.
        /// </summary>
        public async Task<SaveRecord> PutAsync(string key, string dataJson, SavePutOptions options = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/saves/" + Seg("key", key);
            long? ifVersion = options != null ? options.IfVersion : null;
            bool createOnly = options != null && options.CreateOnly;
            JsonNode body = new PutSaveBody { Data = dataJson, Meta = options != null ? options.MetaJson : null }.ToJson();
            CallContext context = Begin(call);
            Answer answer = await WithConflictCopy(
                () => Send("PUT", path, body, AuthMode.Player, !ifVersion.HasValue && !createOnly, context, cancellationToken, VersionHeaders(ifVersion, createOnly)),
                () => Read(key, context, cancellationToken), true);
            return AnswerReader.Read(answer, SaveRecord.FromJson);
        }

        public async Task DeleteAsync(string key, long? ifVersion = null, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/saves/" + Seg("key", key);
            CallContext context = Begin(call);
            await WithConflictCopy(
                () => Send("DELETE", path, null, AuthMode.Player, false, context, cancellationToken, VersionHeaders(ifVersion, false)),
                () => Read(key, context, cancellationToken), true);
        }
    }

    public sealed class LeaderboardsApi : ApiBase, ILeaderboardsApi
    {
        internal LeaderboardsApi(ClientCore core, bool retries) : base(core, retries) { }

        /// <summary>
        /// Submits once per call: retries reuse the call's Idempotency-Key, so a lost answer never counts twice.
        /// <paramref name="metadataJson"/>: an optional JSON object kept with the entry.
        /// </summary>
        public async Task<LeaderboardEntry> SubmitAsync(string boardId, double score, string metadataJson = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new SubmitScoreBody { Score = score, Metadata = metadataJson }.ToJson();
            return await SendIdempotent("/leaderboards/" + Seg("boardId", boardId) + "/scores", body, call, cancellationToken,
                LeaderboardEntry.FromJson, (entry, key) => entry.IdempotencyKey = key);
        }

        /// <summary>A page of the board (no sign-in needed).</summary>
        public async Task<LeaderboardPage> PageAsync(string boardId, int offset = 0, int limit = 25,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/leaderboards/" + Seg("boardId", boardId) + Query("offset", offset, "limit", limit);
            return AnswerReader.Read(await Send("GET", path, null, AuthMode.None, true, Begin(call), cancellationToken), LeaderboardPage.FromJson);
        }

        /// <summary>The player's own entry; <paramref name="range"/> (1–50) adds that many neighbours Above and Below.</summary>
        public async Task<LeaderboardEntry> MeAsync(string boardId, int range = 0, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/leaderboards/" + Seg("boardId", boardId) + "/player" + Query("range", range > 0 ? (object)range : null);
            return AnswerReader.Read(await Send("GET", path, null, AuthMode.Player, true, Begin(call), cancellationToken), LeaderboardEntry.FromJson);
        }
    }

    public sealed class EconomyApi : ApiBase, IEconomyApi
    {
        internal EconomyApi(ClientCore core, bool retries) : base(core, retries) { }

        public async Task<List<CurrencyBalance>> CurrenciesAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.ReadList(await Send("GET", "/economy/currencies", null, AuthMode.Player, true, Begin(call), cancellationToken), CurrencyBalance.FromJson);
        }

        /// <summary>Adds to a client-writable currency, once per call however often it is retried.</summary>
        public Task<CurrencyChange> AddAsync(string currencyId, long amount, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return Change("add", currencyId, amount, cancellationToken, call);
        }

        /// <summary>Subtracts from a client-writable currency, once per call however often it is retried.</summary>
        public Task<CurrencyChange> SubtractAsync(string currencyId, long amount, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return Change("subtract", currencyId, amount, cancellationToken, call);
        }

        private Task<CurrencyChange> Change(string direction, string currencyId, long amount, CancellationToken cancellationToken, CallOptions call)
        {
            JsonNode body = new CurrencyAmountBody { Amount = amount }.ToJson();
            return SendIdempotent("/economy/currencies/" + Seg("currencyId", currencyId) + "/" + direction, body, call, cancellationToken,
                CurrencyChange.FromJson, (change, key) => change.IdempotencyKey = key);
        }

        /// <summary>All costs and rewards in one transaction; spends once per call however often it is retried.</summary>
        public async Task<PurchaseResult> PurchaseAsync(string purchaseId, int quantity = 1, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new PurchaseBody { PurchaseId = purchaseId, Quantity = quantity == 1 ? (long?)null : quantity }.ToJson();
            return await SendIdempotent("/economy/purchase", body, call, cancellationToken,
                PurchaseResult.FromJson, (result, key) => result.IdempotencyKey = key);
        }

        /// <summary>
        /// Redeems a real-money store purchase: the server verifies it with the store and grants the store
        /// product's rewards once per store transaction. The receipt is its own idempotency key (the same
        /// receipt again answers the first result with <c>Replayed</c> true), so a lost answer, a 5xx and 503
        /// STORE_UNAVAILABLE (after its Retry-After) are retried with the same body; a 4xx never is.
        /// Throws <see cref="ReceiptPendingException"/> (409 RECEIPT_PENDING: not paid yet, send it again
        /// later) or a <see cref="GameApiException"/> whose Code is 409 RECEIPT_ALREADY_USED (another player
        /// redeemed it), 422 RECEIPT_INVALID, RECEIPT_EXPIRED, RECEIPT_WRONG_APP, RECEIPT_WRONG_ENVIRONMENT,
        /// RECEIPT_WRONG_PRODUCT, RECEIPT_CANCELLED, STORE_NOT_CONFIGURED (nothing granted: finish or consume
        /// nothing), or 503 STORE_UNAVAILABLE once the retries are spent (keep the receipt, send it later).
        /// </summary>
        /// <example>
        /// ReceiptResult result = await client.Economy.ValidateReceiptAsync(Receipt.Apple(jws));
        /// </example>
        public async Task<ReceiptResult> ValidateReceiptAsync(Receipt receipt, CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            if (receipt == null) throw new ArgumentNullException("receipt");
            Answer answer = await Core.SendAsync(new RequestSpec
            {
                Method = "POST",
                Path = "/economy/receipts",
                Body = receipt.ToJson(),
                Auth = AuthMode.Player,
                Resendable = true,
                RetryServerErrors = true,
            }, Begin(call), cancellationToken);
            return AnswerReader.Read(answer, ReceiptResult.FromJson);
        }

        /// <summary>
        /// Starts a Steam microtransaction (the server's ISteamMicroTxn/InitTxn) for a store product (ours, e.g.
        /// "gems-500") and the player's 64-bit Steam id (<c>SteamUser.GetSteamID()</c>, as a decimal string);
        /// Steam then shows the overlay. Keep <c>OrderId</c> for <c>ValidateReceiptAsync(Receipt.Steam(orderId))</c>
        /// once <c>MicroTxnAuthorizationResponse_t</c> says authorized. Not resent after a lost answer (each
        /// call is a new order at Steam): call it again; an order the player never approves costs nothing.
        /// <paramref name="language"/>: ISO 639-1 code of the item description Steam shows (default "en").
        /// </summary>
        public async Task<SteamOrder> StartSteamOrderAsync(string productId, string steamId, string language = null,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            JsonNode body = new SteamOrderBody { ProductId = productId, SteamId = steamId, Language = language }.ToJson();
            return AnswerReader.Read(await Send("POST", "/economy/receipts/steam", body, AuthMode.Player, false, Begin(call), cancellationToken), SteamOrder.FromJson);
        }

        public async Task<List<InventoryEntry>> InventoryAsync(CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            return AnswerReader.ReadList(await Send("GET", "/economy/inventory", null, AuthMode.Player, true, Begin(call), cancellationToken), InventoryEntry.FromJson);
        }

        /// <summary>The player's ledger, newest first; pass NextCursor back as <paramref name="cursor"/> for the next page.</summary>
        public async Task<EconomyTransactionPage> TransactionsAsync(string cursor = null, int limit = 25,
            CancellationToken cancellationToken = default(CancellationToken), CallOptions call = null)
        {
            string path = "/economy/transactions" + Query("cursor", cursor, "limit", limit);
            return AnswerReader.Read(await Send("GET", path, null, AuthMode.Player, true, Begin(call), cancellationToken), EconomyTransactionPage.FromJson);
        }
    }
}

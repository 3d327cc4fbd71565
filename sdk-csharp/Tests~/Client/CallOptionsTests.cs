using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameBackend;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>
    /// CallOptions with a scripted transport: the caller's Idempotency-Key, the call's deadline, its
    /// attempts, the Retrying event, 503 password_checks_busy, and what the log hook is shown.
    /// </summary>
    [TestFixture]
    public class CallOptionsTests
    {
        private const string PlayerId = "0190c1a2-7b3c-7d4e-8f90-a1b2c3d4e5f6";
        private const string AccessToken = "access-token-that-must-not-be-logged";
        private const string RefreshToken = "refresh-token-that-must-not-be-logged";
        private const string ApiKey = "gb_client_key_that_must_not_be_logged";
        private const string Password = "password that must not be logged";

        private const string PurchaseJson = "{\"transactionId\":\"tx-1\",\"purchaseId\":\"buy-potion\",\"quantity\":1,"
            + "\"balances\":[{\"id\":\"gold\",\"balance\":90}],\"inventory\":[{\"itemId\":\"potion\",\"quantity\":1}]}";

        private const string PageJson = "{\"id\":\"high\",\"name\":\"High\",\"sortOrder\":\"desc\",\"total\":0,\"offset\":0,\"limit\":10,"
            + "\"resetsAt\":null,\"period\":\"all\",\"rewards\":[],\"entries\":[]}";

        private const string ProfileJson = "{\"playerId\":\"" + PlayerId + "\",\"displayName\":null,\"createdAt\":\"2026-11-27T10:00:00.000Z\","
            + "\"hasEmail\":false,\"emailVerified\":false,\"providers\":[],\"lastLoginAt\":null}";

        private static readonly string SessionJson = "{\"playerId\":\"" + PlayerId + "\",\"accessToken\":\"" + AccessToken + "\",\"refreshToken\":\""
            + RefreshToken + "\",\"expiresIn\":900,\"tokenType\":\"Bearer\",\"created\":true}";

        /// <summary>The server's refusal when its password-hash queue is full (server/passwords.ts).</summary>
        private static string Busy()
        {
            return "{\"error\":{\"code\":\"SERVICE_UNAVAILABLE\",\"message\":\"busy\",\"details\":{\"reason\":\"password_checks_busy\",\"retryAfterSeconds\":1}}}";
        }

        private static string Error(string code)
        {
            return "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + code + "\",\"details\":{}}}";
        }

        private static GameClient Client(ScriptedTransport transport, IDelay delay = null, Action<GameClientOptions> configure = null, bool signedIn = true)
        {
            MemorySessionStore store = new MemorySessionStore();
            if (signedIn) store.SetAsync("game-backend.session", new Session(PlayerId, AccessToken, RefreshToken, DateTimeOffset.UtcNow.AddHours(1)).ToJson()).Wait();
            GameClientOptions options = new GameClientOptions
            {
                BaseUrl = "http://game.test",
                ApiKey = ApiKey,
                Transport = transport,
                Delay = delay ?? new RecordingDelay(),
                SessionStore = store,
                DeviceSecret = false,
            };
            if (configure != null) configure(options);
            return new GameClient(options);
        }

        private static T Run<T>(Task<T> call)
        {
            return call.GetAwaiter().GetResult();
        }

        private static GameApiException ThrowsApi(Func<Task> call)
        {
            return Assert.Throws<GameApiException>(() => call().GetAwaiter().GetResult());
        }

        // ---- Idempotency-Key

        [Test]
        public void A_caller_s_IdempotencyKey_is_sent_on_every_attempt_and_is_on_the_result()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Error("SERVICE_UNAVAILABLE"), "1").Then(200, PurchaseJson);
            string key = GameClient.NewIdempotencyKey();
            PurchaseResult result = Run(Client(transport).Economy.PurchaseAsync("buy-potion", call: new CallOptions { IdempotencyKey = key }));
            CollectionAssert.AreEqual(new[] { key, key }, transport.HeaderOfEach("Idempotency-Key"));
            Assert.AreEqual(key, result.IdempotencyKey);
        }

        [Test]
        public void Without_a_caller_s_key_a_fresh_one_is_sent_the_same_on_the_retry_and_is_on_the_result()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Error("SERVICE_UNAVAILABLE"), "1").Then(200, PurchaseJson);
            PurchaseResult result = Run(Client(transport).Economy.PurchaseAsync("buy-potion"));
            List<string> sent = transport.HeaderOfEach("Idempotency-Key");
            Assert.IsNotNullOrEmpty(sent[0]);
            Assert.AreEqual(sent[0], sent[1]);
            Assert.AreEqual(sent[0], result.IdempotencyKey);
        }

        [Test]
        public void A_call_that_got_no_answer_throws_NETWORK_ERROR_carrying_the_key_it_sent()
        {
            ScriptedTransport transport = new ScriptedTransport { Refusal = new IOException("connection reset") };
            GameApiException error = ThrowsApi(() => Client(transport).Economy.AddAsync("gold", 5, call: new CallOptions { MaxAttempts = 1 }));
            Assert.AreEqual(ErrorCodes.NetworkError, error.Code);
            Assert.AreEqual(transport.HeaderOfEach("Idempotency-Key")[0], error.IdempotencyKey);
            Assert.IsNotNullOrEmpty(error.IdempotencyKey);
        }

        [Test]
        public void A_refused_call_s_exception_carries_the_caller_s_key()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(409, Error("INSUFFICIENT_FUNDS"));
            GameApiException error = ThrowsApi(() => Client(transport).Economy.SubtractAsync("gold", 5, call: new CallOptions { IdempotencyKey = "spend-42" }));
            Assert.AreEqual("INSUFFICIENT_FUNDS", error.Code);
            Assert.AreEqual("spend-42", error.IdempotencyKey);
        }

        [Test]
        public void One_CallOptions_object_used_for_two_calls_is_left_unchanged_and_each_call_sends_its_own_key()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(200, PurchaseJson).Then(200, PurchaseJson);
            CallOptions shared = new CallOptions { MaxAttempts = 2 };
            GameClient client = Client(transport);
            Run(client.Economy.PurchaseAsync("buy-potion", call: shared));
            Run(client.Economy.PurchaseAsync("buy-potion", call: shared));
            Assert.IsNull(shared.IdempotencyKey);
            List<string> sent = transport.HeaderOfEach("Idempotency-Key");
            Assert.AreNotEqual(sent[0], sent[1]);
        }

        [Test]
        public void An_IdempotencyKey_with_a_space_throws_ArgumentException_and_sends_nothing()
        {
            ScriptedTransport transport = new ScriptedTransport();
            Assert.Throws<ArgumentException>(() =>
                Run(Client(transport).Economy.PurchaseAsync("buy-potion", call: new CallOptions { IdempotencyKey = "my key" })));
            Assert.AreEqual(0, transport.Requests.Count);
        }

        [Test]
        public void An_IdempotencyKey_longer_than_255_characters_or_empty_throws_ArgumentException_and_sends_nothing()
        {
            ScriptedTransport transport = new ScriptedTransport();
            GameClient client = Client(transport);
            Assert.Throws<ArgumentException>(() => Run(client.Leaderboards.SubmitAsync("high", 10, call: new CallOptions { IdempotencyKey = new string('k', 256) })));
            Assert.Throws<ArgumentException>(() => Run(client.Leaderboards.SubmitAsync("high", 10, call: new CallOptions { IdempotencyKey = "" })));
            Assert.AreEqual(0, transport.Requests.Count);
        }

        // ---- Deadline

        [Test]
        public void A_call_whose_deadline_passes_while_the_server_does_not_answer_throws_TIMEOUT_with_its_key()
        {
            ScriptedTransport transport = new ScriptedTransport { Hang = true };
            Stopwatch took = Stopwatch.StartNew();
            GameApiException error = ThrowsApi(() =>
                Client(transport).Economy.PurchaseAsync("buy-potion", call: new CallOptions { Deadline = TimeSpan.FromMilliseconds(300), IdempotencyKey = "buy-1" }));
            Assert.AreEqual(ErrorCodes.Timeout, error.Code);
            Assert.AreEqual(0, error.Status);
            Assert.AreEqual("buy-1", error.IdempotencyKey);
            Assert.Less(took.Elapsed, TimeSpan.FromSeconds(25), "the default 30 s attempt timeout was not what ended it");
        }

        [Test]
        public void Each_attempt_gets_at_most_what_is_left_of_the_deadline()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(200, PageJson);
            Run(Client(transport, null, o => o.Deadline = TimeSpan.FromSeconds(5)).Leaderboards.PageAsync("high"));
            Assert.That(transport.Timeouts[0], Is.GreaterThan(TimeSpan.Zero).And.LessThanOrEqualTo(TimeSpan.FromSeconds(5)));
        }

        [Test]
        public void A_Retry_After_longer_than_what_is_left_of_the_deadline_is_not_waited_and_the_answer_is_thrown()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Error("SERVICE_UNAVAILABLE"), "3");
            RecordingDelay delay = new RecordingDelay();
            GameClient client = Client(transport, delay, o => o.Retry = new RetryOptions { MaxDelay = TimeSpan.FromSeconds(10) });
            GameApiException error = ThrowsApi(() => client.Leaderboards.PageAsync("high", call: new CallOptions { Deadline = TimeSpan.FromSeconds(2) }));
            Assert.AreEqual("SERVICE_UNAVAILABLE", error.Code);
            Assert.AreEqual(3, error.RetryAfterSeconds);
            Assert.AreEqual(0, delay.Waits.Count);
            Assert.AreEqual(1, transport.Requests.Count);
        }

        // ---- Attempts and the Retrying event

        [Test]
        public void MaxAttempts_2_sends_a_call_twice_at_most()
        {
            ScriptedTransport transport = new ScriptedTransport()
                .Then(503, Error("SERVICE_UNAVAILABLE"), "1").Then(503, Error("SERVICE_UNAVAILABLE"), "1").Then(200, PageJson);
            GameApiException error = ThrowsApi(() => Client(transport).Leaderboards.PageAsync("high", call: new CallOptions { MaxAttempts = 2 }));
            Assert.AreEqual("SERVICE_UNAVAILABLE", error.Code);
            Assert.AreEqual(2, transport.Requests.Count);
        }

        [Test]
        public void MaxAttempts_below_1_throws_ArgumentOutOfRangeException_and_sends_nothing()
        {
            ScriptedTransport transport = new ScriptedTransport();
            Assert.Throws<ArgumentOutOfRangeException>(() => Run(Client(transport).Leaderboards.PageAsync("high", call: new CallOptions { MaxAttempts = 0 })));
            Assert.AreEqual(0, transport.Requests.Count);
        }

        [Test]
        public void Retrying_tells_the_attempt_number_the_reason_and_the_wait_before_each_retry()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Error("SERVICE_UNAVAILABLE"), "1").Then(200, PageJson);
            GameClient client = Client(transport);
            List<RetryEvent> events = new List<RetryEvent>();
            client.Retrying += e => events.Add(e);
            Run(client.Leaderboards.PageAsync("high"));
            Assert.AreEqual(1, events.Count);
            Assert.AreEqual(2, events[0].Attempt);
            Assert.AreEqual("SERVICE_UNAVAILABLE", events[0].Reason);
            Assert.AreEqual(503, events[0].Status);
            Assert.That(events[0].Delay.TotalMilliseconds, Is.InRange(1000, 1200), "Retry-After 1 s plus at most the 200 ms jitter");
            StringAssert.StartsWith("GET /leaderboards/high", events[0].Request);
        }

        // ---- 503 password_checks_busy

        [Test]
        public void A_login_answered_password_checks_busy_waits_each_Retry_After_and_retries_beyond_the_usual_3_retries()
        {
            ScriptedTransport transport = new ScriptedTransport();
            for (int i = 0; i < 5; i++) transport.Then(503, Busy(), "1");
            transport.Then(200, SessionJson);
            RecordingDelay delay = new RecordingDelay();
            Session session = Run(Client(transport, delay, null, false).Auth.LoginAsync("a@example.com", Password));
            Assert.AreEqual(PlayerId, session.PlayerId);
            Assert.AreEqual(6, transport.Requests.Count);
            Assert.AreEqual(5, delay.Waits.Count);
            Assert.IsTrue(delay.Waits.All(w => w.TotalMilliseconds >= 1000 && w.TotalMilliseconds <= 1200), string.Join(", ", delay.Waits));
        }

        [Test]
        public void A_register_answered_password_checks_busy_is_sent_again_although_a_register_is_never_resent_after_a_lost_answer()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Busy(), "1").Then(201, SessionJson);
            Session session = Run(Client(transport, null, null, false).Auth.RegisterAsync("a@example.com", Password));
            Assert.AreEqual(PlayerId, session.PlayerId);
            Assert.AreEqual(new[] { "POST /api/v1/auth/email/register", "POST /api/v1/auth/email/register" }, transport.Lines().ToArray());
        }

        [Test]
        public void Password_checks_busy_is_retried_only_while_the_waits_fit_in_the_deadline()
        {
            ScriptedTransport transport = new ScriptedTransport();
            for (int i = 0; i < 10; i++) transport.Then(503, Busy(), "1");
            RecordingDelay delay = new RecordingDelay();
            GameApiException error = ThrowsApi(() =>
                Client(transport, delay, null, false).Auth.LoginAsync("a@example.com", Password, call: new CallOptions { Deadline = TimeSpan.FromSeconds(2.5) }));
            Assert.AreEqual("SERVICE_UNAVAILABLE", error.Code);
            Assert.AreEqual(2, delay.Waits.Count, "1 s + 1 s fit in 2.5 s, a third does not");
            Assert.Less(delay.Waits.Sum(w => w.TotalMilliseconds), 2500);
            Assert.AreEqual(3, transport.Requests.Count);
        }

        [Test]
        public void WithoutRetries_sends_a_login_answered_password_checks_busy_once()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(503, Busy(), "1");
            GameApiException error = ThrowsApi(() => Client(transport, null, null, false).WithoutRetries().Auth.LoginAsync("a@example.com", Password));
            Assert.AreEqual("SERVICE_UNAVAILABLE", error.Code);
            Assert.AreEqual(1, transport.Requests.Count);
        }

        // ---- The log hook

        private static List<string> Logged(Action<GameClient> calls, ScriptedTransport transport, bool signedIn)
        {
            List<string> lines = new List<string>();
            GameClient client = Client(transport, null, o => o.Log = (level, message) => { lock (lines) lines.Add(level + " " + message); }, signedIn);
            calls(client);
            return lines;
        }

        [Test]
        public void The_log_shows_a_register_without_its_password_the_API_key_or_the_answered_tokens()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(201, SessionJson);
            List<string> lines = Logged(c => Run(c.Auth.RegisterAsync("a@example.com", Password)), transport, false);
            string all = string.Join("\n", lines);
            StringAssert.Contains("/auth/email/register", all);
            StringAssert.Contains("a@example.com", all, "what is not secret stays readable");
            StringAssert.Contains("[redacted]", all);
            foreach (string secret in new[] { Password, ApiKey, AccessToken, RefreshToken }) StringAssert.DoesNotContain(secret, all);
        }

        [Test]
        public void The_log_shows_a_refresh_without_the_refresh_tokens_or_the_bearer_token()
        {
            ScriptedTransport transport = new ScriptedTransport()
                .Then(401, "{\"error\":{\"code\":\"INVALID_TOKEN\",\"message\":\"expired\",\"details\":{}}}")
                .Then(200, SessionJson.Replace(AccessToken, "new-access-token-not-for-logs").Replace(RefreshToken, "new-refresh-token-not-for-logs"))
                .Then(200, ProfileJson);
            List<string> lines = Logged(c => Run(c.Players.MeAsync()), transport, true);
            string all = string.Join("\n", lines);
            StringAssert.Contains("/auth/refresh", all);
            foreach (string secret in new[] { AccessToken, RefreshToken, "new-access-token-not-for-logs", "new-refresh-token-not-for-logs" })
            {
                StringAssert.DoesNotContain(secret, all);
            }
        }

        [Test]
        public void The_log_shows_a_store_receipt_call_without_the_receipt()
        {
            const string jws = "eyJhbGciOiJFUzI1NiJ9.receipt-payload-not-for-logs.signature";
            ScriptedTransport transport = new ScriptedTransport().Then(422, Error("RECEIPT_INVALID"));
            List<string> lines = Logged(c => Assert.Throws<GameApiException>(() => Run(c.Economy.ValidateReceiptAsync(Receipt.Apple(jws)))), transport, true);
            string all = string.Join("\n", lines);
            StringAssert.Contains("/economy/receipts", all);
            StringAssert.Contains("RECEIPT_INVALID", all, "error codes are kept");
            StringAssert.DoesNotContain("receipt-payload-not-for-logs", all);
        }

        [Test]
        public void A_log_hook_that_throws_does_not_fail_the_call()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(200, PageJson);
            GameClient client = Client(transport, null, o => o.Log = (level, message) => { throw new InvalidOperationException("broken logger"); });
            Assert.AreEqual("high", Run(client.Leaderboards.PageAsync("high")).Id);
        }
    }
}

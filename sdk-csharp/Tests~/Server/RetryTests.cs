using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;
using GameBackend.Json;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Lost answers through a proxy that drops them: idempotency keys, and what is never resent.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class LostAnswerTests
    {
        TestProject project;
        TestProxy proxy;

        [TestFixtureSetUp]
        public void MakeProjectAndProxy()
        {
            project = Fixtures.Project();
            proxy = Fixtures.Proxy();
        }

        /// <summary>A client that talks to the app through this fixture's proxy (its own proxy: tests of other fixtures cannot take its drops).</summary>
        GameClient ViaProxy(RecordingTransport rec = null)
        {
            return Fixtures.Client(project, o =>
            {
                o.BaseUrl = proxy.BaseUrl;
                o.Retry = new RetryOptions { BaseDelay = TimeSpan.FromMilliseconds(10) };
                if (rec != null) o.Transport = rec;
            });
        }

        [Test]
        public void A_purchase_whose_answer_is_dropped_is_retried_with_the_same_key_and_spends_once()
        {
            var rec = new RecordingTransport();
            GameClient game = ViaProxy(rec);
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            proxy.DropNextAnswers(1);

            PurchaseResult result = Run(() => game.Economy.PurchaseAsync("buy-potion"));

            Assert.IsNotEmpty(result.TransactionId);
            List<Exchange> attempts = rec.To("/api/v1/economy/purchase");
            CollectionAssert.AreEqual(new[] { 0, 200 }, attempts.Select(e => e.Status).ToList(), string.Join(", ", rec.Lines()));
            Assert.IsNotNullOrEmpty(attempts[0].IdempotencyKey);
            Assert.AreEqual(attempts[0].IdempotencyKey, attempts[1].IdempotencyKey);
            Assert.AreEqual(1, Fixtures.LedgerKinds(project, playerId).Count(k => k == "PURCHASE"), "one purchase in the ledger");
            Assert.AreEqual(90, Run(() => game.Economy.CurrenciesAsync())[0].Balance);
        }

        [Test]
        public void A_purchase_sent_again_after_a_restart_with_the_key_kept_from_a_lost_answer_spends_once_and_answers_the_first_purchase()
        {
            var rec = new RecordingTransport();
            MemorySessionStore store = new MemorySessionStore();
            GameClient before = Fixtures.Client(project, o => { o.BaseUrl = proxy.BaseUrl; o.Transport = rec; o.SessionStore = store; });
            string playerId = Run(() => before.Auth.AnonymousAsync()).PlayerId;
            // The game keeps the key with the pending purchase before it calls, then loses the answer (and, say, crashes).
            string key = GameClient.NewIdempotencyKey();
            proxy.DropNextAnswers(1);
            GameApiException lost = ThrowsApi(0, "NETWORK_ERROR",
                () => before.Economy.PurchaseAsync("buy-potion", call: new CallOptions { IdempotencyKey = key, MaxAttempts = 1 }));
            Assert.AreEqual(key, lost.IdempotencyKey);

            GameClient after = Fixtures.Client(project, o => { o.Transport = rec; o.SessionStore = store; });
            PurchaseResult result = Run(() => after.Economy.PurchaseAsync("buy-potion", call: new CallOptions { IdempotencyKey = key }));

            Assert.AreEqual(key, result.IdempotencyKey);
            CollectionAssert.AreEqual(new[] { key, key }, rec.To("/api/v1/economy/purchase").Select(e => e.IdempotencyKey).ToList());
            Assert.AreEqual(1, Fixtures.LedgerKinds(project, playerId).Count(k => k == "PURCHASE"), "one purchase in the ledger");
            Assert.AreEqual(90, Run(() => after.Economy.CurrenciesAsync())[0].Balance);
        }

        [Test]
        public void A_currency_add_whose_answer_is_dropped_is_retried_with_the_same_key_and_applied_once()
        {
            var rec = new RecordingTransport();
            GameClient game = ViaProxy(rec);
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            long first = Run(() => game.Economy.AddAsync("coins", 7)).Balance;
            int addsBefore = Fixtures.LedgerKinds(project, playerId).Count;
            proxy.DropNextAnswers(1);

            long second = Run(() => game.Economy.AddAsync("coins", 7)).Balance;

            Assert.AreEqual(first + 7, second);
            Assert.AreEqual(first + 7, Run(() => game.Economy.CurrenciesAsync())[0].Balance);
            List<Exchange> attempts = rec.To("/add").Skip(1).ToList();
            CollectionAssert.AreEqual(new[] { 0, 200 }, attempts.Select(e => e.Status).ToList(), string.Join(", ", rec.Lines()));
            Assert.AreEqual(attempts[0].IdempotencyKey, attempts[1].IdempotencyKey);
            Assert.AreEqual(addsBefore + 1, Fixtures.LedgerKinds(project, playerId).Count, "one more ledger row");
        }

        [Test]
        public void A_conditional_save_write_whose_answer_is_dropped_is_not_resent_and_fails_with_NETWORK_ERROR()
        {
            var rec = new RecordingTransport();
            GameClient game = ViaProxy(rec);
            Run(() => game.Auth.AnonymousAsync());
            SaveRecord first = Run(() => game.Saves.PutAsync("slot", "{\"level\":1}"));
            proxy.DropNextAnswers(1);

            ThrowsApi(0, "NETWORK_ERROR", () => game.Saves.PutAsync("slot", "{\"level\":2}", new SavePutOptions { IfVersion = first.Version }));

            CollectionAssert.AreEqual(new[] { 201, 0 }, rec.Log.Where(e => e.Method == "PUT").Select(e => e.Status).ToList());
            SaveRecord stored = Run(() => game.Saves.GetAsync("slot"));
            Assert.AreEqual(2, stored.Version, "the write landed once");
            Assert.AreEqual("{\"level\":2}", RawJson.Canon(stored.Data));
        }

        [Test]
        public void WithoutRetries_makes_a_dropped_answer_fail_at_once_with_NETWORK_ERROR()
        {
            var rec = new RecordingTransport();
            GameClient game = ViaProxy(rec);
            Run(() => game.Auth.AnonymousAsync());
            proxy.DropNextAnswers(1);

            ThrowsApi(0, "NETWORK_ERROR", () => game.WithoutRetries().Economy.PurchaseAsync("buy-potion"));

            Assert.AreEqual(1, rec.To("/economy/purchase").Count, "sent once");
            Assert.IsNotNull(game.Session, "the same client, still signed in");
        }
    }

    /// <summary>The real limiter's 429s: waited out per Retry-After, or refused at once when too long.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class RateLimitTests
    {
        [Test]
        public void A_429_whose_Retry_After_exceeds_MaxDelay_is_thrown_at_once_with_RATE_LIMITED_and_RetryAfterSeconds()
        {
            TestProject project = Fixtures.Project(customRateLimit: 2);
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o =>
            {
                o.Transport = rec;
                o.Retry = new RetryOptions { MaxDelay = TimeSpan.FromMilliseconds(100) };
            });
            var refused = new List<GameApiException>();
            // Three calls against a limit of two; a round that straddles the window's end is played again.
            for (int round = 0; round < 3 && refused.Count == 0; round++) refused.AddRange(Outcomes(game));

            Assert.IsNotEmpty(refused, "a call was refused");
            Assert.AreEqual(429, refused[0].Status);
            Assert.AreEqual("RATE_LIMITED", refused[0].Code);
            Assert.That(refused[0].RetryAfterSeconds, Is.GreaterThan(0));
            Assert.AreEqual(refused.Count, rec.Log.Count(e => e.Status == 429), "no 429 was retried");
        }

        static List<GameApiException> Outcomes(GameClient game)
        {
            Task<LeaderboardPage>[] calls = Enumerable.Range(0, 3).Select(i => Task.Run(() => game.Leaderboards.PageAsync("high"))).ToArray();
            var refused = new List<GameApiException>();
            foreach (Task<LeaderboardPage> call in calls)
            {
                try
                {
                    call.GetAwaiter().GetResult();
                }
                catch (GameApiException e)
                {
                    refused.Add(e);
                }
            }
            return refused;
        }

        [Test]
        public void A_429_is_retried_no_sooner_than_its_Retry_After_and_then_succeeds()
        {
            // A dedicated app with a 2-second window, so Retry-After is short.
            TestProject project = Fixtures.Project(customRateLimit: 2, shortWindow: true);
            var limitedSeen = new List<string>();
            for (int round = 0; round < 5 && limitedSeen.Count == 0; round++)
            {
                // One client (and one log) per call, so each 429 is matched with its own retry.
                var logs = Enumerable.Range(0, 3).Select(i => new RecordingTransport()).ToList();
                var clients = logs.Select(rec => Fixtures.Client(project, o => o.Transport = rec)).ToList();
                LeaderboardPage[] pages = Run(() => Task.WhenAll(clients.Select(c => c.Leaderboards.PageAsync("high"))));
                Assert.IsTrue(pages.All(p => p.Id == "high"), "every call succeeded in the end");
                foreach (RecordingTransport rec in logs)
                {
                    List<Exchange> log = rec.Log;
                    for (int i = 0; i < log.Count; i++)
                    {
                        if (log[i].Status != 429) continue;
                        Assert.That(i + 1, Is.LessThan(log.Count), "a 429 was followed by a retry");
                        double retryAfter = double.Parse(log[i].RetryAfter, CultureInfo.InvariantCulture);
                        Assert.That(retryAfter, Is.GreaterThan(0));
                        double waited = log[i + 1].StartedMs - log[i].EndedMs;
                        // Sent no sooner than the server asked (timer granularity aside).
                        Assert.That(waited, Is.GreaterThanOrEqualTo(retryAfter * 1000 - 20), "waited " + waited + " ms for Retry-After " + retryAfter);
                        limitedSeen.Add(log[i].RetryAfter);
                    }
                    Assert.AreEqual(200, log[log.Count - 1].Status);
                }
            }
            Assert.IsNotEmpty(limitedSeen, "the limiter answered 429 at least once");
        }
    }
}

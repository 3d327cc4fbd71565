using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Sessions against the real server: persisted, restored, refreshed once for everyone, ended.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class SessionTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        GameClient On(ISessionStore store, IHttpTransport transport = null)
        {
            return Fixtures.Client(project, o =>
            {
                o.SessionStore = store;
                if (transport != null) o.Transport = transport;
            });
        }

        [Test]
        public void A_session_is_persisted_to_the_store_and_restored_by_ReadyAsync_of_a_new_client_on_the_same_store()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            GameClient second = On(store);
            Run(() => second.ReadyAsync());
            Assert.IsNotNull(second.Session);
            Assert.AreEqual(session.PlayerId, second.Session.PlayerId);
            Assert.AreEqual(session.PlayerId, Run(() => second.Players.MeAsync()).PlayerId);
        }

        [Test]
        public void A_FileSessionStore_keeps_the_session_for_a_client_made_later_on_the_same_file()
        {
            string path = Path.Combine(Path.GetTempPath(), "gb-cs-session-" + Guid.NewGuid().ToString("N") + ".json");
            try
            {
                Session session = Run(() => On(new FileSessionStore(path)).Auth.AnonymousAsync());
                Assert.IsTrue(File.Exists(path), "the store wrote its file");
                GameClient later = On(new FileSessionStore(path));
                Run(() => later.ReadyAsync());
                Assert.IsNotNull(later.Session, "restored from the file");
                Assert.AreEqual(session.PlayerId, later.Session.PlayerId);
                Assert.AreEqual(session.PlayerId, Run(() => later.Players.MeAsync()).PlayerId);
            }
            finally
            {
                if (File.Exists(path)) File.Delete(path);
            }
        }

        [Test]
        public void Twenty_parallel_calls_with_an_expired_access_token_share_one_refresh_and_all_succeed()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            Stores.ExpireLocally(store);
            var rec = new RecordingTransport();
            GameClient game = On(store, rec);

            PlayerProfile[] answers = Run(() => Task.WhenAll(Enumerable.Range(0, 20).Select(i => game.Players.MeAsync())));

            Assert.IsTrue(answers.All(a => a.PlayerId == session.PlayerId), "every call answered for the same player");
            Assert.AreEqual(1, rec.To("/auth/refresh").Count, string.Join(", ", rec.Lines()));
            Assert.AreNotEqual(session.RefreshToken, game.Session.RefreshToken);
        }

        [Test]
        public void An_access_token_the_server_calls_expired_mid_session_is_refreshed_once_and_the_call_retried()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            string expired = Fixtures.ExpiredAccessToken(project, session);
            // The client believes its token is good for ten more minutes; only the server knows better.
            Stores.Rewrite(store, "accessToken", JsonNode.From(expired));
            Stores.Rewrite(store, "expiresAt", JsonNode.From(TestClock.EpochMs(DateTimeOffset.UtcNow) + 600000));
            var rec = new RecordingTransport();
            GameClient game = On(store, rec);

            Assert.AreEqual(100, Run(() => game.Economy.CurrenciesAsync())[0].Balance);
            CollectionAssert.AreEqual(
                new[] { "401 /api/v1/economy/currencies", "200 /api/v1/auth/refresh", "200 /api/v1/economy/currencies" },
                rec.Lines());
            Assert.AreEqual(game.Session.AccessToken, Stores.StoredSession(store)["accessToken"].AsString());
        }

        [Test]
        public void A_session_revoked_elsewhere_throws_SessionEndedException_clears_the_store_and_raises_SessionChanged_null_once()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            MemorySessionStore twin = Stores.Holding(session);
            // Without the device secret, which would sign this anonymous player in again.
            GameClient game = Fixtures.Client(project, o =>
            {
                o.SessionStore = store;
                o.DeviceSecret = false;
            });
            Run(() => game.ReadyAsync());
            var changes = new List<Session>();
            game.SessionChanged += s => { lock (changes) changes.Add(s); };
            // The same session signed out from another device.
            Run(() => On(twin).Auth.LogoutAsync());

            Throws<SessionEndedException>(() => game.Players.MeAsync());

            Assert.IsNull(game.Session);
            Assert.IsNull(Run(() => store.GetAsync(Fixtures.SessionKey)), "the store forgot the session");
            lock (changes)
            {
                Assert.AreEqual(1, changes.Count, "SessionChanged raised once");
                Assert.IsNull(changes[0]);
            }
        }

        [Test]
        public void LogoutAsync_of_a_session_already_ended_elsewhere_succeeds_and_forgets_it()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            Run(() => On(Stores.Holding(session)).Auth.LogoutAsync());
            GameClient game = On(store);
            Run(() => game.Auth.LogoutAsync());
            Assert.IsNull(game.Session);
            Assert.IsNull(Run(() => store.GetAsync(Fixtures.SessionKey)));
        }

        [Test]
        public void SessionChanged_is_raised_on_sign_in_on_refresh_and_with_null_on_sign_out()
        {
            GameClient game = Fixtures.Client(project);
            var changes = new List<Session>();
            game.SessionChanged += s => { lock (changes) changes.Add(s); };

            Session signedIn = Run(() => game.Auth.AnonymousAsync());
            Session refreshed = Run(() => game.Auth.RefreshAsync());
            Run(() => game.Auth.LogoutAsync());

            lock (changes)
            {
                Assert.AreEqual(3, changes.Count, "sign-in, refresh, sign-out");
                Assert.AreEqual(signedIn.RefreshToken, changes[0].RefreshToken);
                Assert.AreEqual(refreshed.RefreshToken, changes[1].RefreshToken);
                Assert.AreNotEqual(signedIn.RefreshToken, refreshed.RefreshToken);
                Assert.IsNull(changes[2]);
            }
        }

        [Test]
        public void A_call_waiting_on_a_refresh_while_another_player_signs_in_is_not_sent_as_that_player()
        {
            var store = new MemorySessionStore();
            Session a = Run(() => On(store).Auth.AnonymousAsync());
            Stores.ExpireLocally(store);
            string email = Fixtures.UniqueEmail("b-cs");
            Run(() => Fixtures.Client(project).Auth.RegisterAsync(email, Fixtures.Password));
            var holding = new HoldingTransport("/auth/refresh");
            GameClient game = On(store, holding);

            Task<PurchaseResult> purchase = Task.Run(() => game.Economy.PurchaseAsync("buy-potion"));
            holding.WaitUntilHolding();
            Session b = Run(() => game.Auth.LoginAsync(email, Fixtures.Password));
            holding.Release();

            SessionEndedException error = Throws<SessionEndedException>(() => purchase);
            Assert.AreEqual("player-changed", JsonNode.Parse(error.DetailsJson)["reason"].AsString());
            Assert.AreNotEqual(a.PlayerId, b.PlayerId);
            Assert.AreEqual(b.PlayerId, game.Session.PlayerId);
            Assert.AreEqual(100, Run(() => game.Economy.CurrenciesAsync())[0].Balance, "the purchase was not made as the new player");
        }

        [Test]
        public void A_refresh_refused_for_a_bad_API_key_keeps_the_session()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            Stores.ExpireLocally(store);
            GameClient game = Fixtures.Client(project, o =>
            {
                o.SessionStore = store;
                o.ApiKey = "gb_client_not-a-real-key";
            });
            ThrowsApi(401, "INVALID_API_KEY", () => game.Players.MeAsync());
            Assert.AreEqual(session.RefreshToken, game.Session.RefreshToken);
            Assert.AreEqual(session.RefreshToken, Stores.StoredSession(store)["refreshToken"].AsString());
        }
        [Test]
        public void A_store_that_answers_later_is_restored_once_ReadyAsync_completes()
        {
            var memory = new MemorySessionStore();
            Session session = Run(() => On(memory).Auth.AnonymousAsync());
            var slow = new GatedStore(memory);
            GameClient restored = On(slow);
            Assert.IsNull(restored.Session, "nothing read yet");
            Task ready = restored.ReadyAsync();
            slow.Open();
            Run(() => ready);
            Assert.IsNotNull(restored.Session);
            Assert.AreEqual(session.PlayerId, restored.Session.PlayerId);
        }

        [Test]
        public void LogoutAsync_called_before_a_slow_store_restored_the_session_still_ends_it_on_the_server()
        {
            var memory = new MemorySessionStore();
            Session session = Run(() => On(memory).Auth.AnonymousAsync());
            var slow = new GatedStore(memory);
            GameClient game = On(slow);
            Task logout = game.Auth.LogoutAsync();
            slow.Open();
            Run(() => logout);

            Assert.IsNull(game.Session);
            Assert.IsNull(Run(() => memory.GetAsync(Fixtures.SessionKey)), "the store forgot the session");
            MemorySessionStore twin = Stores.Holding(session);
            Stores.ExpireLocally(twin);
            Throws<SessionEndedException>(() => On(twin).Players.MeAsync());
        }

        [Test]
        public void One_caller_cancelling_a_shared_refresh_gets_OperationCanceledException_and_the_other_caller_and_the_session_go_on()
        {
            var store = new MemorySessionStore();
            Session session = Run(() => On(store).Auth.AnonymousAsync());
            Stores.ExpireLocally(store);
            var holding = new HoldingTransport("/auth/refresh");
            GameClient game = On(store, holding);
            var cancel = new CancellationTokenSource();

            Task<PlayerProfile> first = Task.Run(() => game.Players.MeAsync(cancel.Token));
            Task<PlayerProfile> second = Task.Run(() => game.Players.MeAsync());
            holding.WaitUntilHolding();
            cancel.Cancel();
            Throws<OperationCanceledException>(() => first);
            holding.Release();

            Assert.AreEqual(session.PlayerId, Run(() => second).PlayerId);
            string stored = Stores.StoredSession(store)["refreshToken"].AsString();
            Assert.AreNotEqual(session.RefreshToken, stored, "the refresh went through");
            Assert.AreEqual(game.Session.RefreshToken, stored);
        }
    }
}

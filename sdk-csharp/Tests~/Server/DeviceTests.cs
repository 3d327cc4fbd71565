using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Anonymous players that come back (the device secret), server keys refused, path segments a URL would rewrite.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class DeviceTests
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
        public void Two_clients_restored_from_one_copied_store_both_keep_playing_as_the_same_player_after_the_server_ended_the_session()
        {
            var a = new MemorySessionStore();
            GameClient clientA = On(a);
            Session first = Run(() => clientA.Auth.AnonymousAsync());
            // Device B starts from a copy of A's store (Steam Cloud, a restored backup), its access token long expired.
            MemorySessionStore b = Stores.Copy(a);
            Stores.ExpireLocally(b);
            // The copied session is ended server-side (as reuse detection does when both devices refresh it).
            Fixtures.RevokeSessions(project, first.PlayerId);

            GameClient clientB = On(b);
            Run(() => clientB.Data.SetAsync("from-b", "{\"device\":\"b\"}"));
            Run(() => clientA.Data.SetAsync("from-a", "{\"device\":\"a\"}"));

            Assert.AreEqual(first.PlayerId, clientA.Session.PlayerId);
            Assert.AreEqual(first.PlayerId, clientB.Session.PlayerId);
            CollectionAssert.AreEqual(new[] { "from-a", "from-b" }, Run(() => clientA.Data.ListAsync()).Select(r => r.Key).OrderBy(k => k, StringComparer.Ordinal).ToList());
            Assert.AreEqual(first.PlayerId, Run(() => clientB.Players.MeAsync()).PlayerId);
        }

        [Test]
        public void AnonymousAsync_after_logout_signs_the_same_devices_player_in_again()
        {
            GameClient game = Fixtures.Client(project);
            Session first = Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Auth.LogoutAsync());
            Assert.AreEqual(first.PlayerId, Run(() => game.Auth.AnonymousAsync()).PlayerId);
        }

        [Test]
        public void ForgetDeviceAsync_makes_the_next_AnonymousAsync_a_new_player()
        {
            GameClient game = Fixtures.Client(project);
            Session first = Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Auth.LogoutAsync());
            Run(() => game.Auth.ForgetDeviceAsync());
            Assert.AreNotEqual(first.PlayerId, Run(() => game.Auth.AnonymousAsync()).PlayerId);
        }

        [Test]
        public void With_DeviceSecret_false_AnonymousAsync_after_logout_creates_a_new_player()
        {
            GameClient game = Fixtures.Client(project, o => o.DeviceSecret = false);
            Session first = Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Auth.LogoutAsync());
            Assert.AreNotEqual(first.PlayerId, Run(() => game.Auth.AnonymousAsync()).PlayerId);
        }

        [Test]
        public void A_revoked_session_the_device_secret_cannot_recover_because_the_player_signed_up_ends_after_one_attempt()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            Run(() => game.Auth.AnonymousAsync());
            Session upgraded = Run(() => game.Auth.RegisterAsync(Fixtures.UniqueEmail("device-cs"), Fixtures.Password));
            Run(() => On(Stores.Holding(upgraded)).Auth.LogoutAsync());

            Throws<SessionEndedException>(() => game.Players.MeAsync());

            Assert.IsNull(game.Session);
            List<string> lines = rec.Lines();
            List<string> after = lines.Skip(lines.FindIndex(l => l.EndsWith("/api/v1/auth/email/register", StringComparison.Ordinal)) + 1).ToList();
            CollectionAssert.AreEqual(new[] { "401 /api/v1/players/me", "401 /api/v1/auth/refresh", "409 /api/v1/auth/anonymous" }, after);
        }

        [Test]
        public void The_constructor_refuses_a_server_key_with_an_ArgumentException_that_says_why()
        {
            var options = new GameClientOptions { BaseUrl = TestEnv.BaseUrl, ApiKey = project.ServerKey ?? "gb_server_0123456789abcdef", SessionStore = new MemorySessionStore() };
            ArgumentException error = Assert.Throws<ArgumentException>(() => new GameClient(options));
            StringAssert.Contains("server key", error.Message.ToLowerInvariant());
        }

        [Test]
        public void Deleting_the_data_key_dotdot_throws_VALIDATION_ERROR_without_a_request_and_the_account_stays()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;

            GameApiException error = Throws<GameApiException>(() => game.Data.DeleteAsync(".."));

            Assert.AreEqual("VALIDATION_ERROR", error.Code);
            CollectionAssert.IsEmpty(rec.Log.Where(e => e.Method == "DELETE").ToList());
            Assert.AreEqual(playerId, Run(() => game.Players.MeAsync()).PlayerId);
        }

        [Test]
        public void A_dot_dotdot_or_empty_path_segment_throws_VALIDATION_ERROR_without_a_request()
        {
            var calls = new Dictionary<string, Func<GameClient, Task>>
            {
                { "Data.GetAsync(\".\")", g => g.Data.GetAsync(".") },
                { "Saves.DeleteAsync(\"..\")", g => g.Saves.DeleteAsync("..") },
                { "Saves.PutAsync(\".\")", g => g.Saves.PutAsync(".", "1") },
                { "Players.GetAsync(\"..\")", g => g.Players.GetAsync("..") },
                { "Leaderboards.PageAsync(\"..\")", g => g.Leaderboards.PageAsync("..") },
                { "Economy.AddAsync(\"\")", g => g.Economy.AddAsync("", 1) },
            };
            foreach (var call in calls)
            {
                var rec = new RecordingTransport();
                GameClient game = Fixtures.Client(project, o => o.Transport = rec);
                Run(() => game.Auth.AnonymousAsync());
                GameApiException error = Throws<GameApiException>(() => call.Value(game));
                Assert.AreEqual("VALIDATION_ERROR", error.Code, call.Key);
                CollectionAssert.AreEqual(new[] { "/api/v1/auth/anonymous" }, rec.Log.Select(e => e.Path).ToList(), call.Key);
            }
        }

        [Test]
        public void A_key_with_slash_question_mark_hash_or_percent_is_sent_as_one_percent_encoded_segment()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            Run(() => game.Auth.AnonymousAsync());
            ThrowsApi(400, "VALIDATION_ERROR", () => game.Data.GetAsync("a/b?c#d%"));
            Assert.AreEqual("/api/v1/players/me/data/a%2Fb%3Fc%23d%25", rec.Log.Last().Path);
        }
    }
}

using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>
    /// Config.GetAsync against the real server: the ETag round trip (304), the values kept in the session
    /// store and answered as stale when the server cannot be reached, and the typed getters.
    /// </summary>
    [TestFixture, Timeout(300000)]
    public sealed class ConfigTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProjectWithConfigKeys()
        {
            project = Fixtures.Project();
            Fixtures.ConfigKey(project, "shop.discount", "number", "15");
            Fixtures.ConfigKey(project, "motd", "string", "\"Welcome back\"");
            Fixtures.ConfigKey(project, "event.on", "boolean", "true");
        }

        static string IfNoneMatch(Exchange e)
        {
            string value;
            return e.RequestHeaders.TryGetValue("If-None-Match", out value) ? value : null;
        }

        [Test]
        public void GetAsync_answers_the_players_values_read_by_the_typed_getters()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.AnonymousAsync());

            RemoteConfig config = Run(() => game.Config.GetAsync());

            Assert.IsFalse(config.Stale);
            Assert.AreEqual(15, config.GetInt("shop.discount", 0));
            Assert.AreEqual(15.0, config.GetNumber("shop.discount", 0));
            Assert.AreEqual("Welcome back", config.GetString("motd"));
            Assert.IsTrue(config.GetBool("event.on", false));
            Assert.AreEqual(7, config.GetInt("missing", 7));
            Assert.AreEqual(3, config.GetInt("motd", 3), "a value of another type answers the fallback");
            Assert.AreEqual(0, config.Assignments.Count);
            Assert.GreaterOrEqual(config.Version, 0);
        }

        [Test]
        public void A_second_GetAsync_sends_the_ETag_as_If_None_Match_gets_304_and_answers_the_same_values()
        {
            RecordingTransport rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            Run(() => game.Auth.AnonymousAsync());

            RemoteConfig first = Run(() => game.Config.GetAsync());
            RemoteConfig second = Run(() => game.Config.GetAsync());

            List<Exchange> calls = rec.To("/api/v1/config");
            CollectionAssert.AreEqual(new[] { 200, 304 }, calls.Select(e => e.Status).ToArray());
            Assert.IsNull(IfNoneMatch(calls[0]));
            Assert.IsNotNullOrEmpty(calls[0].ETag);
            Assert.AreEqual(calls[0].ETag, IfNoneMatch(calls[1]));
            Assert.IsFalse(second.Stale);
            Assert.AreEqual(first.Version, second.Version);
            CollectionAssert.AreEquivalent(first.Values, second.Values);
        }

        [Test]
        public void When_the_server_cannot_be_reached_GetAsync_answers_the_values_kept_in_the_store_as_stale()
        {
            TestProxy proxy = Fixtures.Proxy();
            MemorySessionStore store = new MemorySessionStore();
            GameClient online = Fixtures.Client(project, o =>
            {
                o.BaseUrl = proxy.BaseUrl;
                o.SessionStore = store;
            });
            Run(() => online.Auth.AnonymousAsync());
            RemoteConfig fresh = Run(() => online.Config.GetAsync());

            proxy.Close();
            // A restart without a network: a new client on the same store.
            GameClient offline = Fixtures.Client(project, o =>
            {
                o.BaseUrl = proxy.BaseUrl;
                o.SessionStore = store;
                o.Retry = new RetryOptions { Retries = 0 };
            });
            RemoteConfig kept = Run(() => offline.Config.GetAsync());

            Assert.IsTrue(kept.Stale);
            Assert.AreEqual(fresh.Version, kept.Version);
            CollectionAssert.AreEquivalent(fresh.Values, kept.Values);
            Assert.AreEqual(15, kept.GetInt("shop.discount", 0));
            Assert.IsTrue(offline.Config.Last.Stale);
        }

        [Test]
        public void With_nothing_kept_an_unreachable_server_throws_NETWORK_ERROR()
        {
            TestProxy proxy = Fixtures.Proxy();
            MemorySessionStore store = new MemorySessionStore();
            GameClient online = Fixtures.Client(project, o =>
            {
                o.BaseUrl = proxy.BaseUrl;
                o.SessionStore = store;
            });
            Run(() => online.Auth.AnonymousAsync());
            proxy.Close();

            GameClient offline = Fixtures.Client(project, o =>
            {
                o.BaseUrl = proxy.BaseUrl;
                o.SessionStore = store;
                o.Retry = new RetryOptions { Retries = 0 };
            });
            ThrowsApi(0, ErrorCodes.NetworkError, () => offline.Config.GetAsync());
        }

        [Test]
        public void Values_kept_for_one_player_are_not_answered_to_another_player_on_the_same_store()
        {
            MemorySessionStore store = new MemorySessionStore();
            GameClient first = Fixtures.Client(project, o => o.SessionStore = store);
            Run(() => first.Auth.AnonymousAsync());
            Run(() => first.Config.GetAsync());
            Run(() => first.Auth.ForgetDeviceAsync());
            Run(() => first.Auth.AnonymousAsync());

            RecordingTransport rec = new RecordingTransport();
            GameClient second = Fixtures.Client(project, o =>
            {
                o.SessionStore = store;
                o.Transport = rec;
            });
            Run(() => second.ReadyAsync());
            Assert.IsNull(second.Config.Last);
            Run(() => second.Config.GetAsync());
            List<Exchange> calls = rec.To("/api/v1/config");
            Assert.AreEqual(1, calls.Count);
            Assert.AreEqual(200, calls[0].Status);
            Assert.IsNull(IfNoneMatch(calls[0]));
        }
    }
}

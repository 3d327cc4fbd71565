using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameBackend.Json;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Typed errors: the server's, and those the client makes without an answer.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class ErrorTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        [Test]
        public void A_non_2xx_answer_throws_GameApiException_with_status_code_details_and_request_id()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.AnonymousAsync());

            GameApiException error = ThrowsApi(409, "INSUFFICIENT_FUNDS", () => game.Economy.SubtractAsync("coins", 1000));

            JsonNode details = JsonNode.Parse(error.DetailsJson);
            Assert.AreEqual("coins", details["currencyId"].AsString());
            Assert.AreEqual(100, details["balance"].AsLong());
            Assert.AreEqual(1000, details["requested"].AsLong());
            Assert.IsNotNullOrEmpty(error.RequestId);
            Assert.IsNotNullOrEmpty(error.Message);
        }

        [Test]
        public void A_call_that_needs_a_player_before_any_sign_in_throws_MISSING_TOKEN_without_a_request()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            ThrowsApi(401, "MISSING_TOKEN", () => game.Players.MeAsync());
            CollectionAssert.IsEmpty(rec.Log);
        }

        [Test]
        public void A_closed_port_throws_NETWORK_ERROR_with_status_0_once_the_retries_are_spent()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o =>
            {
                o.BaseUrl = "http://127.0.0.1:9";
                o.Transport = rec;
                o.Retry = new RetryOptions { Retries = 2, BaseDelay = TimeSpan.FromMilliseconds(1) };
            });
            ThrowsApi(0, "NETWORK_ERROR", () => game.Leaderboards.PageAsync("high"));
            CollectionAssert.AreEqual(new[] { 0, 0, 0 }, rec.Log.Select(e => e.Status).ToList(), "the first attempt and two retries");
        }

        [Test]
        public void A_2xx_answer_that_is_not_JSON_like_a_captive_portals_page_throws_UNEXPECTED_RESPONSE()
        {
            GameClient game = Fixtures.Client(project, o => o.Transport = new CaptivePortalTransport());
            ThrowsApi(200, "UNEXPECTED_RESPONSE", () => game.Leaderboards.PageAsync("high"));
        }

        [Test]
        public void A_call_cancelled_while_its_answer_is_on_the_way_throws_OperationCanceledException_and_is_not_retried()
        {
            var rec = new RecordingTransport();
            var holding = new HoldingTransport(rec, "/leaderboards/high");
            GameClient game = Fixtures.Client(project, o => o.Transport = holding);
            var cancel = new CancellationTokenSource();

            Task<LeaderboardPage> page = Task.Run(() => game.Leaderboards.PageAsync("high", 0, 10, cancel.Token));
            holding.WaitUntilHolding();
            cancel.Cancel();

            Throws<OperationCanceledException>(() => page);
            Assert.AreEqual(1, rec.To("/leaderboards/high").Count, "sent once");
        }

        [Test]
        public void Every_request_carries_X_Client_Version_and_X_Platform_when_set()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o =>
            {
                o.Transport = rec;
                o.ClientVersion = "1.4.2";
                o.Platform = "test-console";
            });
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Players.MeAsync());
            Run(() => game.Leaderboards.PageAsync("high"));
            Run(() => game.Auth.RefreshAsync());
            Run(() => game.Auth.LogoutAsync());

            Assert.AreEqual(5, rec.Log.Count);
            foreach (Exchange e in rec.Log)
            {
                Assert.AreEqual("1.4.2", Header(e, "X-Client-Version"), e.ToString());
                Assert.AreEqual("test-console", Header(e, "X-Platform"), e.ToString());
                Assert.AreEqual(project.ClientKey, Header(e, "X-API-Key"), e.ToString());
            }
        }

        [Test]
        public void Without_a_Platform_option_every_request_carries_the_operating_system_as_X_Platform()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Players.MeAsync());
            foreach (Exchange e in rec.Log) Assert.IsNotNullOrEmpty(Header(e, "X-Platform"), e.ToString());
        }

        static string Header(Exchange e, string name)
        {
            string value;
            return e.RequestHeaders.TryGetValue(name, out value) ? value : null;
        }
    }

    /// <summary>The player's own account: export and deletion.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class AccountTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        [Test]
        public void ExportAsync_returns_the_signed_in_players_data_keys_saves_and_profile()
        {
            GameClient game = Fixtures.Client(project);
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            Run(() => game.Data.SetAsync("secret-ish", "{\"level\":3}"));
            Run(() => game.Saves.PutAsync("slot-9", "{\"map\":\"forest\"}"));

            PlayerExport exported = Run(() => game.Players.ExportAsync());

            JsonNode json = JsonNode.Parse(exported.Json);
            Assert.AreEqual(playerId, json["profile"]["playerId"].AsString());
            Assert.AreEqual(1, json["data"].Count);
            Assert.AreEqual("secret-ish", json["data"][0]["key"].AsString());
            Assert.AreEqual("{\"level\":3}", json["data"][0]["value"].ToJson());
            Assert.AreEqual(1, json["saves"].Count);
            Assert.AreEqual("slot-9", json["saves"][0]["key"].AsString());
            Assert.AreEqual("{\"map\":\"forest\"}", json["saves"][0]["data"].ToJson());
        }

        [Test]
        public void DeleteAccountAsync_of_an_anonymous_player_needs_no_password_and_forgets_the_session_here()
        {
            var store = new MemorySessionStore();
            GameClient game = Fixtures.Client(project, o => o.SessionStore = store);
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Players.DeleteAccountAsync());
            Assert.IsNull(game.Session);
            Assert.IsNull(Run(() => store.GetAsync(Fixtures.SessionKey)));
            ThrowsApi(401, "MISSING_TOKEN", () => game.Players.MeAsync());
        }

        [Test]
        public void DeleteAccountAsync_with_a_wrong_password_throws_INVALID_CREDENTIALS_and_keeps_the_account_and_session()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.RegisterAsync(Fixtures.UniqueEmail("del-cs"), Fixtures.Password));
            ThrowsApi(401, "INVALID_CREDENTIALS", () => game.Players.DeleteAccountAsync("not the passphrase"));
            Assert.AreEqual(true, Run(() => game.Players.MeAsync()).HasEmail);
        }
    }
}

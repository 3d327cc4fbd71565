using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using GameBackend.Json;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>The C# client against the real server: every operation of the served document is reachable.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class OperationsTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        [Test]
        public void Every_operation_of_the_served_OpenAPI_document_is_called_by_some_CSharp_method()
        {
            var rec = new RecordingTransport();
            GameClient game = Fixtures.Client(project, o => o.Transport = rec);
            GameClient other = Fixtures.Client(project);
            Session otherSession = Run(() => other.Auth.AnonymousAsync());
            Run(() => other.Data.SetAsync("card", "{\"title\":\"hi\"}", new DataSetOptions { Visibility = "public" }));

            string email = Fixtures.UniqueEmail("sdk-cs");
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Auth.RegisterAsync(email, Fixtures.Password, "Sdk"));
            Run(() => game.Auth.LogoutAsync());
            string playerId = Run(() => game.Auth.LoginAsync(email, Fixtures.Password)).PlayerId;
            ThrowsApi(400, "UNKNOWN_PROVIDER", () => game.Auth.IdpAsync("nobody", "x.y.z"));
            Run(() => game.Auth.ResendVerificationAsync());
            ThrowsApi(401, "INVALID_CODE", () => game.Auth.VerifyEmailAsync("000000"));
            Run(() => game.Auth.RequestPasswordResetAsync(email));
            ThrowsApi(401, "INVALID_CODE", () => game.Auth.ConfirmPasswordResetAsync(email, "000000", "another unusual passphrase"));
            Run(() => game.Auth.RefreshAsync());
            Assert.AreEqual(playerId, Run(() => game.Players.MeAsync()).PlayerId);
            Assert.AreEqual("Renamed", Run(() => game.Players.UpdateAsync("Renamed")).DisplayName);
            Assert.AreEqual(otherSession.PlayerId, Run(() => game.Players.GetAsync(otherSession.PlayerId)).PlayerId);
            Assert.AreEqual(1, Run(() => game.Data.SetAsync("settings", "{\"sound\":false}")).Version);
            Assert.AreEqual("{\"sound\":false}", RawJson.Canon(Run(() => game.Data.GetAsync("settings")).Value));
            Assert.AreEqual("{\"title\":\"hi\"}", RawJson.Canon(Run(() => game.Data.GetAsync("card", otherSession.PlayerId)).Value));
            CollectionAssert.AreEqual(new[] { "settings" }, Run(() => game.Data.ListAsync()).Select(r => r.Key).ToList());
            CollectionAssert.AreEqual(new[] { "a" }, Run(() => game.Data.BatchAsync(new DataBatch().Set("a", "1").Delete("settings"))).Select(r => r.Key).ToList());
            Run(() => game.Data.DeleteAsync("a"));
            Assert.AreEqual(1, Run(() => game.Saves.PutAsync("slot-1", "{\"level\":2}", new SavePutOptions { MetaJson = "{\"label\":\"Forest\"}" })).Version);
            Assert.AreEqual("{\"level\":2}", RawJson.Canon(Run(() => game.Saves.GetAsync("slot-1")).Data));
            CollectionAssert.AreEqual(new[] { "slot-1" }, Run(() => game.Saves.ListAsync()).Select(s => s.Key).ToList());
            Run(() => game.Saves.DeleteAsync("slot-1"));
            Assert.AreEqual(42, Run(() => game.Leaderboards.SubmitAsync("high", 42, "{\"level\":2}")).Score);
            Assert.AreEqual(playerId, Run(() => game.Leaderboards.PageAsync("high", 0, 10)).Entries[0].PlayerId);
            Assert.AreEqual(1, Run(() => game.Leaderboards.MeAsync("high", 2)).Rank);
            List<CurrencyBalance> currencies = Run(() => game.Economy.CurrenciesAsync());
            Assert.AreEqual(1, currencies.Count);
            Assert.AreEqual("coins", currencies[0].Id);
            Assert.AreEqual("Coins", currencies[0].Name);
            Assert.AreEqual(100, currencies[0].Balance);
            Assert.AreEqual(105, Run(() => game.Economy.AddAsync("coins", 5)).Balance);
            Assert.AreEqual(102, Run(() => game.Economy.SubtractAsync("coins", 3)).Balance);
            PurchaseResult purchase = Run(() => game.Economy.PurchaseAsync("buy-potion", 2));
            Assert.AreEqual(1, purchase.Balances.Count);
            Assert.AreEqual("coins", purchase.Balances[0].Id);
            Assert.AreEqual(82, Run(() => game.Economy.CurrenciesAsync())[0].Balance);
            List<InventoryEntry> inventory = Run(() => game.Economy.InventoryAsync());
            Assert.AreEqual("potion", inventory[0].ItemId);
            Assert.AreEqual(2, inventory[0].Quantity);
            CollectionAssert.Contains(Run(() => game.Economy.TransactionsAsync(null, 10)).Transactions.Select(t => t.Kind).ToList(), "purchase");
            // This project sells nothing in a store: the calls reach the server and are refused.
            Assert.AreEqual(422, Throws<GameApiException>(() => game.Economy.ValidateReceiptAsync(Receipt.Steam("1"))).Status);
            ThrowsApi(422, ErrorCodes.ReceiptWrongProduct, () => game.Economy.StartSteamOrderAsync("gems-500", "76561197960287930"));
            JsonNode exported = JsonNode.Parse(Run(() => game.Players.ExportAsync()).Json);
            Assert.AreEqual(playerId, exported["profile"]["playerId"].AsString());
            Assert.AreEqual("open", Run(() => game.Players.ReportAsync(otherSession.PlayerId, "spam")).Status);
            Assert.IsFalse(Run(() => game.Config.GetAsync()).Stale);
            Run(() => game.Players.DeleteAccountAsync(Fixtures.Password));

            List<string> operations = ServedOperations();
            var templates = ServedPaths();
            var called = new HashSet<string>(rec.Log.Select(e => e.Method.ToUpperInvariant() + " " + PathTemplates.TemplateOf(templates, StripApi(e.Path))));
            CollectionAssert.IsEmpty(operations.Where(op => !called.Contains(op)).ToList(), "operations no C# method reached");
        }

        [Test]
        public void A_registered_anonymous_player_keeps_its_playerId_and_its_profile_reports_the_email()
        {
            GameClient game = Fixtures.Client(project);
            Session anonymous = Run(() => game.Auth.AnonymousAsync());
            Session upgraded = Run(() => game.Auth.RegisterAsync(Fixtures.UniqueEmail("up-cs"), Fixtures.Password));
            Assert.AreEqual(anonymous.PlayerId, upgraded.PlayerId);
            Assert.AreEqual(true, Run(() => game.Players.MeAsync()).HasEmail);
        }

        static string StripApi(string path)
        {
            return path.StartsWith("/api/v1", System.StringComparison.Ordinal) ? path.Substring("/api/v1".Length) : path;
        }

        static JsonNode Document()
        {
            using (var http = new HttpClient())
            {
                string text = Run(() => http.GetStringAsync(TestEnv.BaseUrl + "/api/v1/openapi.json"));
                return JsonNode.Parse(text);
            }
        }

        static List<string> ServedPaths()
        {
            return Document()["paths"].Keys.ToList();
        }

        /// <summary>"METHOD /template" for every operation of the served document.</summary>
        static List<string> ServedOperations()
        {
            var methods = new HashSet<string> { "get", "post", "put", "patch", "delete" };
            var operations = new List<string>();
            foreach (var path in Document()["paths"].Members)
            {
                foreach (string method in path.Value.Keys)
                {
                    if (methods.Contains(method)) operations.Add(method.ToUpperInvariant() + " " + path.Key);
                }
            }
            Assert.That(operations.Count, Is.GreaterThan(20), "the served document lists the API's operations");
            return operations;
        }
    }
}

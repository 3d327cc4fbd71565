using System;
using System.Text.RegularExpressions;
using System.Threading;
using GameBackend;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>GameClientOptions are checked when the client is made: a mistake there fails at once, naming the option.</summary>
    [TestFixture]
    public class OptionsTests
    {
        private static GameClientOptions Valid()
        {
            return new GameClientOptions { BaseUrl = "https://game.example.com", ApiKey = "gb_client_test", SessionStore = new MemorySessionStore() };
        }

        private static ArgumentException Refused(Action<GameClientOptions> change)
        {
            GameClientOptions options = Valid();
            change(options);
            return Assert.Throws<ArgumentException>(() => new GameClient(options));
        }

        [Test]
        public void A_BaseUrl_without_a_scheme_is_refused_at_creation_naming_BaseUrl()
        {
            ArgumentException error = Refused(o => o.BaseUrl = "localhost:3000");
            StringAssert.Contains("BaseUrl must be an absolute http:// or https:// URL", error.Message);
            StringAssert.Contains("\"localhost:3000\"", error.Message);
        }

        [Test]
        public void A_BaseUrl_that_is_only_a_host_name_is_refused_at_creation()
        {
            StringAssert.Contains("BaseUrl", Refused(o => o.BaseUrl = "game.example.com").Message);
        }

        [Test]
        public void A_BaseUrl_with_another_scheme_is_refused_at_creation()
        {
            StringAssert.Contains("BaseUrl", Refused(o => o.BaseUrl = "ftp://game.example.com").Message);
        }

        [Test]
        public void An_http_BaseUrl_with_a_port_and_a_trailing_slash_is_taken()
        {
            GameClientOptions options = Valid();
            options.BaseUrl = "http://192.168.1.20:3000/";
            Assert.IsNotNull(new GameClient(options));
        }

        [Test]
        public void An_ApiKey_with_a_trailing_newline_is_refused_saying_so()
        {
            ArgumentException error = Refused(o => o.ApiKey = "gb_client_test\n");
            StringAssert.Contains("ApiKey ends with a newline", error.Message);
        }

        [Test]
        public void An_ApiKey_with_whitespace_inside_is_refused_saying_so()
        {
            ArgumentException error = Refused(o => o.ApiKey = "gb_client_ test");
            StringAssert.Contains("ApiKey contains whitespace", error.Message);
        }

        [Test]
        public void An_ApiKey_with_a_control_character_is_refused_saying_so()
        {
            ArgumentException error = Refused(o => o.ApiKey = "gb_client_\u0007test");
            StringAssert.Contains("ApiKey contains a control character", error.Message);
        }

        [Test]
        public void A_zero_or_negative_Timeout_is_refused_naming_Timeout()
        {
            StringAssert.StartsWith("Timeout", Refused(o => o.Timeout = TimeSpan.Zero).Message);
            StringAssert.StartsWith("Timeout", Refused(o => o.Timeout = TimeSpan.FromSeconds(-1)).Message);
        }

        [Test]
        public void A_zero_Deadline_is_refused_naming_Deadline()
        {
            StringAssert.StartsWith("Deadline", Refused(o => o.Deadline = TimeSpan.Zero).Message);
        }

        [Test]
        public void Infinite_Timeout_and_Deadline_are_taken()
        {
            GameClientOptions options = Valid();
            options.Timeout = Timeout.InfiniteTimeSpan;
            options.Deadline = Timeout.InfiniteTimeSpan;
            Assert.IsNotNull(new GameClient(options));
        }

        [Test]
        public void NewIdempotencyKey_is_32_lower_case_hex_characters_and_new_each_time()
        {
            string first = GameClient.NewIdempotencyKey();
            string second = GameClient.NewIdempotencyKey();
            Assert.IsTrue(Regex.IsMatch(first, "^[0-9a-f]{32}$"), first);
            Assert.AreNotEqual(first, second);
        }

        [Test]
        public void GameClient_is_an_IGameClient_whose_API_groups_are_the_client_s_own()
        {
            GameClient client = new GameClient(Valid());
            IGameClient faked = client;
            Assert.AreSame(client.Economy, faked.Economy);
            Assert.AreSame(client.Auth, faked.Auth);
            Assert.AreSame(client.Config, faked.Config);
            Assert.IsInstanceOf<IEconomyApi>(faked.WithoutRetries().Economy);
        }
    }
}

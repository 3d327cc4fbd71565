using System;
using System.Net.Http;
using System.Text;
using System.Text.RegularExpressions;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>
    /// The harness itself (sdk-csharp/Tests~/csharp.test.ts): the environment it gives the NUnit
    /// suite reaches the app and the fixture server. Plain HttpClient, no SDK: these pass or fail
    /// on their own, so a failure elsewhere is the SDK's, not the harness's.
    /// </summary>
    [TestFixture]
    public sealed class HarnessTests
    {
        static readonly HttpClient Http = new HttpClient { Timeout = TimeSpan.FromMinutes(3) };

        static string Env(string name)
        {
            string value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value)) Assert.Fail(name + " is not set: run this suite through sdk-csharp/Tests~/csharp.test.ts");
            return value.TrimEnd('/');
        }

        static string Field(string json, string name)
        {
            Match m = Regex.Match(json, "\"" + Regex.Escape(name) + "\"\\s*:\\s*\"([^\"]*)\"");
            Assert.IsTrue(m.Success, "no string field \"" + name + "\" in " + json);
            return m.Groups[1].Value;
        }

        static string Send(HttpRequestMessage request, int expectedStatus)
        {
            using (HttpResponseMessage response = Http.SendAsync(request).GetAwaiter().GetResult())
            {
                string body = response.Content.ReadAsStringAsync().GetAwaiter().GetResult();
                Assert.AreEqual(expectedStatus, (int)response.StatusCode, request.Method + " " + request.RequestUri + " answered " + body);
                return body;
            }
        }

        static HttpRequestMessage Post(string url, string json)
        {
            return new HttpRequestMessage(HttpMethod.Post, url) { Content = new StringContent(json, Encoding.UTF8, "application/json") };
        }

        [Test]
        public void The_app_at_GB_BASE_URL_serves_its_OpenAPI_document()
        {
            string body = Send(new HttpRequestMessage(HttpMethod.Get, Env("GB_BASE_URL") + "/api/v1/openapi.json"), 200);
            StringAssert.Contains("\"openapi\"", body);
            StringAssert.Contains("/auth/anonymous", body);
        }

        [Test]
        public void A_project_made_by_the_fixture_server_signs_in_an_anonymous_player_on_the_app()
        {
            string project = Send(Post(Env("GB_FIXTURES_URL") + "/projects", "{}"), 200);
            StringAssert.StartsWith("gb_client_", Field(project, "clientKey"));
            Assert.AreEqual(Env("GB_BASE_URL"), Field(project, "baseUrl").TrimEnd('/'));

            HttpRequestMessage signIn = Post(Field(project, "baseUrl") + "/api/v1/auth/anonymous", "{}");
            signIn.Headers.Add("X-API-Key", Field(project, "clientKey"));
            StringAssert.Contains("\"accessToken\"", Send(signIn, 200));
        }

        [Test]
        public void The_fixture_server_answers_an_unknown_route_with_404_and_an_error()
        {
            string body = Send(new HttpRequestMessage(HttpMethod.Get, Env("GB_FIXTURES_URL") + "/no-such-fixture"), 404);
            StringAssert.Contains("\"error\"", body);
        }
    }
}

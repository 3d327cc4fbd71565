using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using GameBackend;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>
    /// What the client does around the wire, with a scripted transport (the real-server cases are in
    /// Tests~/Server): the synchronisation context, the injected delay and clock, cancellation.
    /// </summary>
    [TestFixture]
    public class ClientBehaviourTests
    {
        private const string PlayerId = "0190c1a2-7b3c-7d4e-8f90-a1b2c3d4e5f6";

        private static string SessionJson(string access, string refresh)
        {
            return "{\"playerId\":\"" + PlayerId + "\",\"accessToken\":\"" + access + "\",\"refreshToken\":\"" + refresh
                + "\",\"expiresIn\":900,\"tokenType\":\"Bearer\",\"created\":true}";
        }

        private const string ProfileJson = "{\"playerId\":\"" + PlayerId + "\",\"displayName\":null,\"createdAt\":\"2026-11-27T10:00:00.000Z\","
            + "\"hasEmail\":false,\"emailVerified\":false,\"providers\":[],\"lastLoginAt\":null}";

        private const string PageJson = "{\"id\":\"high\",\"name\":\"High\",\"sortOrder\":\"desc\",\"total\":0,\"offset\":0,\"limit\":10,"
            + "\"resetsAt\":null,\"period\":\"all\",\"rewards\":[],\"entries\":[]}";

        /// <summary>One thread that runs what is posted to it, in order: a stand-in for Unity's main thread.</summary>
        private sealed class MainThread : SynchronizationContext, IDisposable
        {
            private readonly BlockingCollection<Action> queue = new BlockingCollection<Action>();
            private readonly Thread thread;

            public MainThread()
            {
                thread = new Thread(() =>
                {
                    SetSynchronizationContext(this);
                    foreach (Action work in queue.GetConsumingEnumerable()) work();
                });
                thread.IsBackground = true;
                thread.Start();
            }

            public int ThreadId
            {
                get { return thread.ManagedThreadId; }
            }

            public override void Post(SendOrPostCallback callback, object state)
            {
                queue.Add(() => callback(state));
            }

            public T Run<T>(Func<Task<T>> work)
            {
                TaskCompletionSource<Task<T>> started = new TaskCompletionSource<Task<T>>();
                queue.Add(() => started.SetResult(work()));
                Task<T> task = started.Task.Result;
                if (!task.Wait(TimeSpan.FromSeconds(60))) throw new TimeoutException("The work did not finish on the main thread.");
                return task.Result;
            }

            public void Dispose()
            {
                queue.CompleteAdding();
            }
        }

        private static GameClient Client(ScriptedTransport transport, IDelay delay = null, ISessionStore store = null, Func<DateTimeOffset> clock = null)
        {
            return new GameClient(new GameClientOptions
            {
                BaseUrl = "http://game.test",
                ApiKey = "gb_client_test",
                Transport = transport,
                Delay = delay ?? new RecordingDelay(),
                SessionStore = store ?? new MemorySessionStore(),
                Clock = clock,
                DeviceSecret = false,
            });
        }

        [Test]
        public void Continuations_and_SessionChanged_run_on_the_synchronisation_context_the_client_was_made_on()
        {
            using (MainThread main = new MainThread())
            {
                ScriptedTransport transport = new ScriptedTransport().Then(200, SessionJson("a1", "r1")).Then(200, ProfileJson);
                List<int> changedOn = new List<int>();
                List<int> resumedOn = main.Run(async () =>
                {
                    GameClient client = Client(transport);
                    client.SessionChanged += session => changedOn.Add(Thread.CurrentThread.ManagedThreadId);
                    List<int> threads = new List<int>();
                    await client.Auth.AnonymousAsync();
                    threads.Add(Thread.CurrentThread.ManagedThreadId);
                    await client.Players.MeAsync();
                    threads.Add(Thread.CurrentThread.ManagedThreadId);
                    return threads;
                });
                Assert.AreEqual(new[] { main.ThreadId, main.ThreadId }, resumedOn.ToArray());
                Assert.AreEqual(new[] { main.ThreadId }, changedOn.ToArray());
            }
        }

        [Test]
        public void A_503_with_Retry_After_is_waited_out_on_the_injected_delay_then_the_call_is_sent_again()
        {
            ScriptedTransport transport = new ScriptedTransport()
                .Then(503, "{\"error\":{\"code\":\"SERVICE_UNAVAILABLE\",\"message\":\"busy\",\"details\":{}}}", "2")
                .Then(200, PageJson);
            RecordingDelay delay = new RecordingDelay();
            LeaderboardPage page = Client(transport, delay).Leaderboards.PageAsync("high", 0, 10).GetAwaiter().GetResult();
            Assert.AreEqual("high", page.Id);
            Assert.AreEqual(1, delay.Waits.Count);
            Assert.That(delay.Waits[0].TotalMilliseconds, Is.InRange(2000, 2200), "Retry-After 2 s plus at most the 200 ms jitter");
            Assert.AreEqual(new[] { "GET /api/v1/leaderboards/high", "GET /api/v1/leaderboards/high" }, transport.Lines().ToArray());
        }

        [Test]
        public void A_call_cancelled_while_it_waits_to_retry_throws_OperationCanceledException_and_sends_nothing_more()
        {
            ScriptedTransport transport = new ScriptedTransport()
                .Then(503, "{\"error\":{\"code\":\"SERVICE_UNAVAILABLE\",\"message\":\"busy\",\"details\":{}}}", "1");
            RecordingDelay delay = new RecordingDelay { Hang = true };
            using (CancellationTokenSource cancel = new CancellationTokenSource())
            {
                Task<LeaderboardPage> call = Client(transport, delay).Leaderboards.PageAsync("high", 0, 10, cancel.Token);
                SpinWait.SpinUntil(() => { lock (delay.Waits) return delay.Waits.Count == 1; }, TimeSpan.FromSeconds(30));
                cancel.Cancel();
                Exception thrown = null;
                try
                {
                    call.GetAwaiter().GetResult();
                }
                catch (Exception error)
                {
                    thrown = error;
                }
                Assert.IsInstanceOf<OperationCanceledException>(thrown);
                Assert.AreEqual(1, transport.Requests.Count);
            }
        }

        [Test]
        public void A_token_inside_the_refresh_margin_of_the_injected_clock_is_refreshed_before_the_call()
        {
            DateTimeOffset now = new DateTimeOffset(2030, 1, 1, 12, 0, 0, TimeSpan.Zero);
            MemorySessionStore store = new MemorySessionStore();
            // Valid for 20 more seconds by the injected clock: inside the default 30 s margin.
            store.SetAsync("game-backend.session", new Session(PlayerId, "a1", "r1", now.AddSeconds(20)).ToJson()).Wait();
            ScriptedTransport transport = new ScriptedTransport().Then(200, SessionJson("a2", "r2")).Then(200, ProfileJson);
            GameClient client = Client(transport, null, store, () => now);
            client.Players.MeAsync().GetAwaiter().GetResult();
            Assert.AreEqual(new[] { "POST /api/v1/auth/refresh", "GET /api/v1/players/me" }, transport.Lines().ToArray());
            Assert.AreEqual("Bearer a2", transport.Requests[1].Headers["Authorization"]);
            Assert.AreEqual(now.AddSeconds(900), client.Session.ExpiresAt);
        }

        [Test]
        public void Raw_JSON_that_does_not_parse_throws_ArgumentException_and_sends_nothing()
        {
            MemorySessionStore store = new MemorySessionStore();
            store.SetAsync("game-backend.session", new Session(PlayerId, "a1", "r1", DateTimeOffset.UtcNow.AddHours(1)).ToJson()).Wait();
            ScriptedTransport transport = new ScriptedTransport();
            GameClient client = Client(transport, null, store);
            Assert.Throws<ArgumentException>(() => client.Data.SetAsync("settings", "{volume: 3}").GetAwaiter().GetResult());
            Assert.AreEqual(0, transport.Requests.Count);
        }

        /// <summary>A store whose writes wait until the test opens it (a slow keychain); removals are quick.</summary>
        private sealed class GatedStore : ISessionStore
        {
            public readonly MemorySessionStore Inner = new MemorySessionStore();
            public readonly TaskCompletionSource<bool> Open = new TaskCompletionSource<bool>();
            public int WritesWaiting;

            public Task<string> GetAsync(string key)
            {
                return Inner.GetAsync(key);
            }

            public async Task SetAsync(string key, string value)
            {
                Interlocked.Increment(ref WritesWaiting);
                await Open.Task;
                await Inner.SetAsync(key, value);
            }

            public Task RemoveAsync(string key)
            {
                return Inner.RemoveAsync(key);
            }
        }

        [Test]
        public void A_second_client_on_the_same_store_uses_the_tokens_the_first_one_refreshed_instead_of_spending_its_own_again()
        {
            DateTimeOffset now = new DateTimeOffset(2030, 1, 1, 12, 0, 0, TimeSpan.Zero);
            MemorySessionStore store = new MemorySessionStore();
            store.SetAsync("game-backend.session", new Session(PlayerId, "a1", "r1", now.AddSeconds(-1)).ToJson()).Wait();
            ScriptedTransport transport = new ScriptedTransport()
                .On("POST /api/v1/auth/refresh", 200, SessionJson("a2", "r2"))
                .On("GET /api/v1/players/me", 200, ProfileJson);
            GameClient first = Client(transport, null, store, () => now);
            GameClient second = Client(transport, null, store, () => now);
            first.Players.MeAsync().GetAwaiter().GetResult();
            second.Players.MeAsync().GetAwaiter().GetResult();
            Assert.AreEqual(new[] { "POST /api/v1/auth/refresh", "GET /api/v1/players/me", "GET /api/v1/players/me" }, transport.Lines().ToArray());
            Assert.AreEqual("Bearer a2", transport.Requests[2].Headers["Authorization"]);
            Assert.AreEqual("r2", second.Session.RefreshToken);
        }

        [Test]
        public void A_sign_out_while_a_slow_store_still_writes_the_refreshed_session_leaves_the_store_empty()
        {
            DateTimeOffset now = new DateTimeOffset(2030, 1, 1, 12, 0, 0, TimeSpan.Zero);
            GatedStore store = new GatedStore();
            store.Inner.SetAsync("game-backend.session", new Session(PlayerId, "a1", "r1", now.AddSeconds(-1)).ToJson()).Wait();
            ScriptedTransport transport = new ScriptedTransport()
                .On("POST /api/v1/auth/refresh", 200, SessionJson("a2", "r2"))
                .On("GET /api/v1/players/me", 200, ProfileJson)
                .On("POST /api/v1/auth/logout", 204, "");
            GameClient client = Client(transport, null, store, () => now);
            Task call = client.Players.MeAsync();
            // The refresh is done and its tokens are being written (held by the store).
            Assert.IsTrue(SpinWait.SpinUntil(() => Volatile.Read(ref store.WritesWaiting) == 1, TimeSpan.FromSeconds(30)));
            Task signOut = client.Auth.LogoutAsync();
            store.Open.SetResult(true);
            Assert.IsTrue(Task.WaitAll(new[] { call, signOut }, TimeSpan.FromSeconds(30)));
            Assert.IsNull(client.Session);
            Assert.IsNull(store.Inner.GetAsync("game-backend.session").Result, "the refreshed tokens were written after the sign-out");
        }

        [Test]
        public void A_request_the_platform_refuses_to_send_fails_at_once_with_NETWORK_ERROR_naming_why_and_is_not_retried()
        {
            ScriptedTransport transport = new ScriptedTransport { Refusal = new InvalidOperationException("Insecure connection not allowed") };
            GameApiException error = Assert.Throws<GameApiException>(() => Client(transport).Leaderboards.PageAsync("high").GetAwaiter().GetResult());
            Assert.AreEqual(ErrorCodes.NetworkError, error.Code);
            Assert.AreEqual(0, error.Status);
            StringAssert.Contains("Insecure connection not allowed", error.Message);
            Assert.AreEqual(1, transport.Requests.Count);
        }

        [Test]
        public void An_infinite_Timeout_and_Deadline_reach_the_transport_as_infinite()
        {
            ScriptedTransport transport = new ScriptedTransport().Then(200, PageJson);
            GameClient client = new GameClient(new GameClientOptions
            {
                BaseUrl = "http://game.test", ApiKey = "gb_client_test", Transport = transport, Timeout = Timeout.InfiniteTimeSpan,
                Deadline = Timeout.InfiniteTimeSpan,
            });
            client.Leaderboards.PageAsync("high").GetAwaiter().GetResult();
            Assert.AreEqual(Timeout.InfiniteTimeSpan, transport.Timeouts[0]);
        }
    }
}

using System;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Players.ReportAsync against the real server: a report is filed once; each refusal is a typed exception.</summary>
    [TestFixture, Timeout(300000)]
    public sealed class ReportTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        string NewPlayer()
        {
            GameClient other = Fixtures.Client(project);
            return Run(() => other.Auth.AnonymousAsync()).PlayerId;
        }

        [Test]
        public void ReportAsync_files_a_report_against_another_player_202_open()
        {
            GameClient game = Fixtures.Client(project);
            string me = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            string target = NewPlayer();

            ReportAccepted report = Run(() => game.Players.ReportAsync(target, "cheating", "Impossible times on every board"));

            Assert.IsNotNullOrEmpty(report.Id);
            Assert.AreEqual("open", report.Status);
            Assert.AreEqual(1, Fixtures.Reports(project, me, target));
        }

        [Test]
        public void Reporting_oneself_throws_400_CANNOT_REPORT_SELF_and_stores_nothing()
        {
            GameClient game = Fixtures.Client(project);
            string me = Run(() => game.Auth.AnonymousAsync()).PlayerId;

            ThrowsApi(400, ErrorCodes.CannotReportSelf, () => game.Players.ReportAsync(me, "spam"));
            Assert.AreEqual(0, Fixtures.Reports(project, me, me));
        }

        [Test]
        public void A_reporter_over_the_limit_gets_429_RATE_LIMITED_with_Retry_After()
        {
            GameClient game = Fixtures.Client(project, o => o.Retry = new RetryOptions { BaseDelay = TimeSpan.FromMilliseconds(10), MaxDelay = TimeSpan.FromMilliseconds(50) });
            Run(() => game.Auth.AnonymousAsync());
            GameApiException refusal = null;
            // The server's limit is 10 new reports an hour: report distinct players until it answers.
            for (int i = 0; i < 30 && refusal == null; i++)
            {
                string target = NewPlayer();
                try
                {
                    Run(() => game.Players.ReportAsync(target, "abuse"));
                }
                catch (GameApiException error)
                {
                    refusal = error;
                }
            }
            Assert.IsNotNull(refusal, "no report was refused");
            Assert.AreEqual(429, refusal.Status, Describe(refusal));
            Assert.AreEqual(ErrorCodes.RateLimited, refusal.Code);
            Assert.IsTrue(refusal.RetryAfterSeconds.HasValue && refusal.RetryAfterSeconds.Value > 0, Describe(refusal));
        }
    }
}

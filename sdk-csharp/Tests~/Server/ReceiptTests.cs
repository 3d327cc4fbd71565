using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>
    /// Economy.ValidateReceiptAsync against the real server, with App Store signed transactions the
    /// harness signs with the suite's test PKI (which the app trusts).
    /// </summary>
    [TestFixture, Timeout(300000)]
    public sealed class ReceiptTests
    {
        TestProject project;
        TestProxy proxy;

        [TestFixtureSetUp]
        public void MakeProjectThatSellsOnApple()
        {
            project = Fixtures.Project();
            Fixtures.SellOnApple(project);
            proxy = Fixtures.Proxy();
        }

        GameClient Client(RecordingTransport rec = null, bool viaProxy = false)
        {
            return Fixtures.Client(project, o =>
            {
                if (viaProxy) o.BaseUrl = proxy.BaseUrl;
                o.Retry = new RetryOptions { BaseDelay = TimeSpan.FromMilliseconds(10) };
                if (rec != null) o.Transport = rec;
            });
        }

        [Test]
        public void An_App_Store_purchase_is_granted_and_read_into_the_typed_result()
        {
            GameClient game = Client();
            Run(() => game.Auth.AnonymousAsync());
            string transactionId;
            string jws = Fixtures.AppleReceipt(out transactionId);

            ReceiptResult result = Run(() => game.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));

            Assert.AreEqual(Store.Apple, result.Store);
            Assert.AreEqual(transactionId, result.StoreTransactionId);
            Assert.AreEqual("gems-500", result.ProductId);
            Assert.AreEqual(1, result.Quantity);
            Assert.AreEqual(ReceiptStatus.Granted, result.Status);
            Assert.IsFalse(result.Replayed);
            Assert.IsNotNullOrEmpty(result.Grant.TransactionId);
            Assert.AreEqual("gems", result.Grant.Balances[0].Id);
            Assert.AreEqual(500, result.Grant.Balances[0].Balance);
        }

        [Test]
        public void The_same_receipt_again_answers_the_first_result_as_a_replay_and_grants_nothing_more()
        {
            GameClient game = Client();
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            string transactionId;
            string jws = Fixtures.AppleReceipt(out transactionId);

            ReceiptResult first = Run(() => game.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));
            ReceiptResult again = Run(() => game.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));

            Assert.IsTrue(again.Replayed);
            Assert.AreEqual(first.ReceiptId, again.ReceiptId);
            Assert.AreEqual(first.Grant.TransactionId, again.Grant.TransactionId);
            Assert.AreEqual(1, Fixtures.StorePurchases(project, playerId));
        }

        [Test]
        public void A_receipt_another_player_redeemed_throws_RECEIPT_ALREADY_USED_and_is_sent_once()
        {
            string transactionId;
            string jws = Fixtures.AppleReceipt(out transactionId);
            GameClient owner = Client();
            Run(() => owner.Auth.AnonymousAsync());
            Run(() => owner.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));
            var rec = new RecordingTransport();
            GameClient other = Client(rec);
            string playerId = Run(() => other.Auth.AnonymousAsync()).PlayerId;

            GameApiException error = ThrowsApi(409, ErrorCodes.ReceiptAlreadyUsed, () => other.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));

            Assert.IsNotInstanceOf<ReceiptPendingException>(error);
            CollectionAssert.AreEqual(new[] { 409 }, rec.To("/api/v1/economy/receipts").Select(e => e.Status).ToList());
            Assert.AreEqual(0, Fixtures.StorePurchases(project, playerId));
        }

        [Test]
        public void A_502_from_a_gateway_in_front_of_the_server_is_retried_with_the_same_receipt_and_granted_once()
        {
            var rec = new RecordingTransport();
            var gateway = new BadGatewayOnce(rec, "/api/v1/economy/receipts");
            GameClient game = Fixtures.Client(project, o =>
            {
                o.Retry = new RetryOptions { BaseDelay = TimeSpan.FromMilliseconds(10) };
                o.Transport = gateway;
            });
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            string transactionId;
            string jws = Fixtures.AppleReceipt(out transactionId);

            ReceiptResult result = Run(() => game.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));

            Assert.AreEqual(1, gateway.Answered, "the gateway answered 502 once");
            Assert.IsFalse(result.Replayed);
            CollectionAssert.AreEqual(new[] { 200 }, rec.To("/api/v1/economy/receipts").Select(e => e.Status).ToList());
            Assert.AreEqual(1, Fixtures.StorePurchases(project, playerId));
        }

        /// <summary>Answers the first request to a path with a proxy's 502 page, without passing it on; the rest go through.</summary>
        sealed class BadGatewayOnce : IHttpTransport
        {
            readonly IHttpTransport inner;
            readonly string path;
            int seen;
            public int Answered;

            public BadGatewayOnce(IHttpTransport inner, string path)
            {
                this.inner = inner;
                this.path = path;
            }

            public Task<ApiResponse> SendAsync(ApiRequest request, TimeSpan timeout, CancellationToken cancellationToken)
            {
                if (RecordingTransport.PathOf(request.Url) == path && Interlocked.Increment(ref seen) == 1)
                {
                    Answered = 1;
                    var headers = new Dictionary<string, string>();
                    headers["content-type"] = "text/html";
                    return Task.FromResult(new ApiResponse { Status = 502, Headers = headers, Body = "<html>502 Bad Gateway</html>" });
                }
                return inner.SendAsync(request, timeout, cancellationToken);
            }
        }

        [Test]
        public void A_receipt_whose_answer_is_dropped_is_sent_again_and_granted_once()
        {
            var rec = new RecordingTransport();
            GameClient game = Client(rec, true);
            string playerId = Run(() => game.Auth.AnonymousAsync()).PlayerId;
            string transactionId;
            string jws = Fixtures.AppleReceipt(out transactionId);
            proxy.DropNextAnswers(1);

            ReceiptResult result = Run(() => game.Economy.ValidateReceiptAsync(Receipt.Apple(jws)));

            List<Exchange> attempts = rec.To("/api/v1/economy/receipts");
            CollectionAssert.AreEqual(new[] { 0, 200 }, attempts.Select(e => e.Status).ToList(), string.Join(", ", rec.Lines()));
            Assert.IsTrue(result.Replayed, "the retry meets the first attempt's grant");
            Assert.AreEqual(500, result.Grant.Balances[0].Balance);
            Assert.AreEqual(1, Fixtures.StorePurchases(project, playerId));
        }
    }
}

using System;
using System.Collections.Generic;
using GameBackend.Json;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>
    /// The generated models (Runtime/Generated/Models.g.cs): answers as the server sends them parse into
    /// the models (nulls, absent optional fields, unknown fields, dates, 2^53 − 1), broken answers throw
    /// JsonException naming the class and field, and request bodies serialise exactly.
    /// </summary>
    [TestFixture]
    public class ModelTests
    {
        const string PlayerA = "0b5e7c7e-5f43-4c8e-9a51-1d2f3b4c5d6e";
        const string PlayerB = "7f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
        const string TxId = "3c9a1f7e-2b4d-4e6f-8a0b-1c2d3e4f5a6b";
        const long MaxSafe = 9007199254740991L; // 2^53 − 1

        /// <summary>JSON written with single quotes for readability (no test value contains one).</summary>
        static JsonNode J(string singleQuoted)
        {
            return JsonNode.Parse(singleQuoted.Replace('\'', '"'));
        }

        static string Q(string singleQuoted)
        {
            return singleQuoted.Replace('\'', '"');
        }

        static DateTimeOffset Utc(int y, int mo, int d, int h, int mi, int s, int ms = 0)
        {
            return new DateTimeOffset(y, mo, d, h, mi, s, ms, TimeSpan.Zero);
        }

        // ---- answers -------------------------------------------------------------------------------

        [Test]
        public void SessionAnswer_ReadsEveryFieldOfTheSessionSchema()
        {
            var s = SessionAnswer.FromJson(J("{'playerId':'" + PlayerA + "','accessToken':'eyJhbGciOiJIUzI1NiJ9.e30.sig','refreshToken':'rt_abc'," +
                                            "'expiresIn':900,'tokenType':'Bearer','created':true}"));
            Assert.AreEqual(PlayerA, s.PlayerId);
            Assert.AreEqual("eyJhbGciOiJIUzI1NiJ9.e30.sig", s.AccessToken);
            Assert.AreEqual("rt_abc", s.RefreshToken);
            Assert.AreEqual(900L, s.ExpiresIn);
            Assert.AreEqual("Bearer", s.TokenType);
            Assert.IsTrue(s.Created);
        }

        [Test]
        public void SessionAnswer_IgnoresUnknownFieldsOfANewerServer()
        {
            var s = SessionAnswer.FromJson(J("{'newField':{'deep':[1,2,{'x':null}]},'playerId':'" + PlayerA + "','accessToken':'a','refreshToken':'r'," +
                                            "'expiresIn':60,'tokenType':'Bearer','created':false,'another':'x'}"));
            Assert.AreEqual(PlayerA, s.PlayerId);
            Assert.AreEqual(60L, s.ExpiresIn);
            Assert.IsFalse(s.Created);
        }

        [Test]
        public void SessionAnswer_MissingRequiredField_ThrowsJsonExceptionNamingClassAndField()
        {
            var e = Assert.Throws<JsonException>(() => SessionAnswer.FromJson(J("{'playerId':'" + PlayerA + "','accessToken':'a','expiresIn':60,'tokenType':'Bearer','created':false}")));
            StringAssert.Contains("SessionAnswer", e.Message);
            StringAssert.Contains("\"refreshToken\"", e.Message);
            StringAssert.Contains("missing", e.Message);
        }

        [Test]
        public void PlayerProfile_FromOwnProfile_ReadsEmailProvidersAndLastLogin()
        {
            var p = PlayerProfile.FromJson(J("{'playerId':'" + PlayerA + "','displayName':'Ada','createdAt':'2026-03-01T10:00:00.000Z'," +
                                            "'hasEmail':true,'emailVerified':false,'providers':['google','steam'],'lastLoginAt':'2026-03-02T08:30:15.25Z'}"));
            Assert.AreEqual(PlayerA, p.PlayerId);
            Assert.AreEqual("Ada", p.DisplayName);
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0), p.CreatedAt);
            Assert.AreEqual(true, p.HasEmail);
            Assert.AreEqual(false, p.EmailVerified);
            CollectionAssert.AreEqual(new[] { "google", "steam" }, p.Providers);
            Assert.AreEqual(Utc(2026, 3, 2, 8, 30, 15, 250), p.LastLoginAt);
        }

        [Test]
        public void PlayerProfile_FromPublicProfile_LeavesTheOwnProfileFieldsNull()
        {
            var p = PlayerProfile.FromJson(J("{'playerId':'" + PlayerB + "','displayName':null,'createdAt':'2026-03-01T10:00:00Z'}"));
            Assert.AreEqual(PlayerB, p.PlayerId);
            Assert.IsNull(p.DisplayName);
            Assert.IsNull(p.HasEmail);
            Assert.IsNull(p.EmailVerified);
            Assert.IsNull(p.Providers, "absent providers (another player's profile) are unknown, not an empty list");
            Assert.IsNull(p.LastLoginAt);
        }

        [Test]
        public void PlayerProfile_NullLastLoginAtAndEmptyProviders_AreKept()
        {
            var p = PlayerProfile.FromJson(J("{'playerId':'" + PlayerA + "','displayName':null,'createdAt':'2026-03-01T10:00:00Z'," +
                                            "'hasEmail':false,'emailVerified':false,'providers':[],'lastLoginAt':null}"));
            Assert.IsNotNull(p.Providers);
            Assert.AreEqual(0, p.Providers.Count);
            Assert.IsNull(p.LastLoginAt);
        }

        [Test]
        public void PlayerProfile_MissingDisplayName_ThrowsEvenThoughItMayBeNull()
        {
            var e = Assert.Throws<JsonException>(() => PlayerProfile.FromJson(J("{'playerId':'" + PlayerA + "','createdAt':'2026-03-01T10:00:00Z'}")));
            StringAssert.Contains("PlayerProfile", e.Message);
            StringAssert.Contains("\"displayName\"", e.Message);
        }

        [Test]
        public void PlayerExport_KeepsTheWholeDocumentAsRawJsonAndReadsExportedAt()
        {
            const string doc = "{\"exportedAt\":\"2026-03-05T12:00:00.123Z\",\"profile\":{\"playerId\":\"" + PlayerA + "\",\"displayName\":\"Ada\"}," +
                               "\"data\":[{\"key\":\"settings\",\"value\":{\"volume\":3}}],\"saves\":[],\"emails\":[],\"knownSignInAddresses\":2}";
            var x = PlayerExport.FromJson(JsonNode.Parse(doc));
            Assert.AreEqual(doc, x.Json);
            Assert.AreEqual(Utc(2026, 3, 5, 12, 0, 0, 123), x.ExportedAt);
        }

        [Test]
        public void DataRecord_ValueIsCompactRawJsonAndVisibilityAString()
        {
            var r = DataRecord.FromJson(JsonNode.Parse("{\"key\":\"settings\",\"value\": { \"volume\" : 3, \"tags\": [ \"a\", null ] },\"version\":2," +
                                                       "\"visibility\":\"public\",\"createdAt\":\"2026-03-01T10:00:00Z\",\"updatedAt\":\"2026-03-01T11:00:00.5Z\"}"));
            Assert.AreEqual("settings", r.Key);
            Assert.AreEqual("{\"volume\":3,\"tags\":[\"a\",null]}", r.Value);
            Assert.AreEqual(2L, r.Version);
            Assert.AreEqual(Visibility.Public, r.Visibility);
            Assert.AreEqual(Utc(2026, 3, 1, 11, 0, 0, 500), r.UpdatedAt);
        }

        [Test]
        public void DataRecord_JsonNullValue_IsTheTextNull()
        {
            var r = DataRecord.FromJson(J("{'key':'k','value':null,'version':1,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}"));
            Assert.AreEqual("null", r.Value);
        }

        [Test]
        public void DataRecord_VersionOf2Pow53Minus1_IsExact()
        {
            var r = DataRecord.FromJson(J("{'key':'k','value':'text','version':9007199254740991,'visibility':'protected','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}"));
            Assert.AreEqual(MaxSafe, r.Version);
            Assert.AreEqual("\"text\"", r.Value);
        }

        [Test]
        public void DataRecord_UnknownVisibilityOfANewerServer_IsKeptAsText()
        {
            var r = DataRecord.FromJson(J("{'key':'k','value':1,'version':1,'visibility':'friends','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}"));
            Assert.AreEqual("friends", r.Visibility);
        }

        [Test]
        public void DataRecord_ListFromJson_ReadsAnArrayAnswer()
        {
            var list = DataRecord.ListFromJson(J("[{'key':'a','value':1,'version':1,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}," +
                                                 "{'key':'b','value':[true],'version':5,'visibility':'public','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}]"));
            Assert.AreEqual(2, list.Count);
            Assert.AreEqual("a", list[0].Key);
            Assert.AreEqual("[true]", list[1].Value);
            Assert.AreEqual(5L, list[1].Version);
        }

        [Test]
        public void DataRecord_ListFromJson_BrokenItem_NamesItsIndex()
        {
            var e = Assert.Throws<JsonException>(() => DataRecord.ListFromJson(J("[{'key':'a','value':1,'version':1,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}," +
                                                                                "{'key':'b','value':1,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}]")));
            StringAssert.Contains("DataRecord", e.Message);
            StringAssert.Contains("\"version\"", e.Message);
            StringAssert.Contains("$[1].version", e.Message);
        }

        [Test]
        public void DataRecord_ListFromJson_ObjectInsteadOfArray_Throws()
        {
            var e = Assert.Throws<JsonException>(() => DataRecord.ListFromJson(J("{'key':'a'}")));
            StringAssert.Contains("array", e.Message);
        }

        [Test]
        public void DataRecord_VersionAsString_ThrowsWrongType()
        {
            var e = Assert.Throws<JsonException>(() => DataRecord.FromJson(J("{'key':'k','value':1,'version':'2','visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}")));
            StringAssert.Contains("DataRecord", e.Message);
            StringAssert.Contains("\"version\"", e.Message);
            StringAssert.Contains("integer", e.Message);
        }

        [Test]
        public void DataRecord_FractionalVersion_ThrowsWrongType()
        {
            var e = Assert.Throws<JsonException>(() => DataRecord.FromJson(J("{'key':'k','value':1,'version':1.5,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}")));
            StringAssert.Contains("\"version\"", e.Message);
            StringAssert.Contains("1.5", e.Message);
        }

        [Test]
        public void DataRecord_NullKey_Throws()
        {
            var e = Assert.Throws<JsonException>(() => DataRecord.FromJson(J("{'key':null,'value':1,'version':1,'visibility':'private','createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}")));
            StringAssert.Contains("\"key\"", e.Message);
            StringAssert.Contains("null", e.Message);
        }

        [Test]
        public void AnswerThatIsNotAnObject_ThrowsNamingTheClass()
        {
            var e = Assert.Throws<JsonException>(() => CurrencyBalance.FromJson(J("['coins']")));
            StringAssert.Contains("CurrencyBalance", e.Message);
            StringAssert.Contains("object", e.Message);
        }

        const string SaveFields = "'key':'slot-1','version':3,'sizeBytes':11,'sha256':'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'," +
                                  "'meta':{'label':'Chapter 3','playtimeSeconds':5400},'createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:05:00.000Z'";

        [Test]
        public void SaveRecord_FromSave_HasDataAndMetaAsRawJson()
        {
            var s = SaveRecord.FromJson(J("{" + SaveFields + ",'data':{'level':4}}"));
            Assert.AreEqual("slot-1", s.Key);
            Assert.AreEqual(3L, s.Version);
            Assert.AreEqual(11L, s.SizeBytes);
            Assert.AreEqual(64, s.Sha256.Length);
            Assert.AreEqual(Q("{'label':'Chapter 3','playtimeSeconds':5400}"), s.Meta);
            Assert.AreEqual(Q("{'level':4}"), s.Data);
            Assert.AreEqual(Utc(2026, 3, 1, 10, 5, 0), s.UpdatedAt);
        }

        [Test]
        public void SaveRecord_FromSaveMetadata_HasNullData()
        {
            var s = SaveRecord.FromJson(J("{" + SaveFields + "}"));
            Assert.IsNull(s.Data);
            Assert.AreEqual(3L, s.Version);
        }

        [Test]
        public void SaveRecord_SaveWithJsonNullData_HasTheTextNull()
        {
            var s = SaveRecord.FromJson(J("{" + SaveFields + ",'data':null}"));
            Assert.AreEqual("null", s.Data);
        }

        [Test]
        public void SaveRecord_MetaThatIsNotAnObject_Throws()
        {
            var e = Assert.Throws<JsonException>(() => SaveRecord.FromJson(J("{'key':'slot-1','version':3,'sizeBytes':11,'sha256':'ab','meta':[1],'createdAt':'2026-03-01T10:00:00Z','updatedAt':'2026-03-01T10:00:00Z'}")));
            StringAssert.Contains("SaveRecord", e.Message);
            StringAssert.Contains("\"meta\"", e.Message);
        }

        [Test]
        public void SaveRecord_ListFromJson_ReadsTheSaveList()
        {
            var list = SaveRecord.ListFromJson(J("[{" + SaveFields + "}]"));
            Assert.AreEqual(1, list.Count);
            Assert.IsNull(list[0].Data);
        }

        static string Entry(int rank, string player, string name, string score, string metadata)
        {
            return "{'rank':" + rank + ",'playerId':'" + player + "','displayName':" + (name == null ? "null" : "'" + name + "'") +
                   ",'score':" + score + ",'metadata':" + metadata + ",'updatedAt':'2026-03-01T10:00:00Z'}";
        }

        [Test]
        public void LeaderboardPage_ReadsRewardTiersAndEntries()
        {
            var page = LeaderboardPage.FromJson(J("{'id':'high-scores','name':'High scores','sortOrder':'desc','total':2,'offset':0,'limit':10," +
                                                  "'resetsAt':'2026-03-08T00:00:00+02:00','period':'2026-W10'," +
                                                  "'rewards':[{'rank':1,'currencies':[{'id':'gems','amount':50}],'items':[{'id':'crown','quantity':1}]}," +
                                                  "{'fromRank':2,'toRank':10,'currencies':[],'items':[]},{'topPercent':12.5,'currencies':[{'id':'coins','amount':9007199254740991}],'items':[]}]," +
                                                  "'entries':[" + Entry(1, PlayerA, "Ada", "4200", "{'level':7,'car':'red'}") + "," + Entry(2, PlayerB, null, "9007199254740991", "null") + "]}"));
            Assert.AreEqual("high-scores", page.Id);
            Assert.AreEqual(SortOrder.Desc, page.SortOrder);
            Assert.AreEqual(2L, page.Total);
            Assert.AreEqual(10L, page.Limit);
            Assert.AreEqual(new DateTimeOffset(2026, 3, 8, 0, 0, 0, TimeSpan.FromHours(2)), page.ResetsAt);
            Assert.AreEqual(TimeSpan.FromHours(2), page.ResetsAt.Value.Offset, "the offset is kept");
            Assert.AreEqual("2026-W10", page.Period);

            Assert.AreEqual(3, page.Rewards.Count);
            Assert.AreEqual(1L, page.Rewards[0].Rank);
            Assert.IsNull(page.Rewards[0].FromRank);
            Assert.AreEqual("gems", page.Rewards[0].Currencies[0].Id);
            Assert.AreEqual(50L, page.Rewards[0].Currencies[0].Amount);
            Assert.AreEqual("crown", page.Rewards[0].Items[0].Id);
            Assert.AreEqual(1L, page.Rewards[0].Items[0].Quantity);
            Assert.IsNull(page.Rewards[1].Rank);
            Assert.AreEqual(2L, page.Rewards[1].FromRank);
            Assert.AreEqual(10L, page.Rewards[1].ToRank);
            Assert.AreEqual(0, page.Rewards[1].Currencies.Count);
            Assert.AreEqual(12.5, page.Rewards[2].TopPercent);
            Assert.AreEqual(MaxSafe, page.Rewards[2].Currencies[0].Amount);

            Assert.AreEqual(2, page.Entries.Count);
            Assert.AreEqual(PlayerA, page.Entries[0].PlayerId);
            Assert.AreEqual(4200.0, page.Entries[0].Score);
            Assert.AreEqual(Q("{'level':7,'car':'red'}"), page.Entries[0].Metadata);
            Assert.IsNull(page.Entries[1].DisplayName);
            Assert.AreEqual((double)MaxSafe, page.Entries[1].Score);
            Assert.AreEqual(MaxSafe, (long)page.Entries[1].Score, "2^53 − 1 is exact as a double");
            Assert.IsNull(page.Entries[1].Metadata);
            Assert.IsNull(page.Entries[1].Updated);
            Assert.AreEqual(0, page.Entries[1].Above.Count, "absent above/below read as empty");
            Assert.AreEqual(0, page.Entries[1].Below.Count);
        }

        [Test]
        public void LeaderboardPage_NullResetsAtAndAscendingOrder()
        {
            var page = LeaderboardPage.FromJson(J("{'id':'fastest','name':'Fastest lap','sortOrder':'asc','total':0,'offset':20,'limit':5,'resetsAt':null,'period':'all','rewards':[],'entries':[]}"));
            Assert.AreEqual(SortOrder.Asc, page.SortOrder);
            Assert.IsNull(page.ResetsAt);
            Assert.AreEqual(20L, page.Offset);
            Assert.AreEqual(0, page.Entries.Count);
            Assert.AreEqual(0, page.Rewards.Count);
        }

        [Test]
        public void LeaderboardPage_BrokenEntry_NamesTheEntryClassFieldAndPlace()
        {
            var e = Assert.Throws<JsonException>(() => LeaderboardPage.FromJson(J("{'id':'b','name':'B','sortOrder':'desc','total':2,'offset':0,'limit':10,'resetsAt':null,'period':'all','rewards':[]," +
                                                                                  "'entries':[" + Entry(1, PlayerA, "Ada", "1", "null") + ",{'rank':2,'displayName':null,'score':1,'metadata':null,'updatedAt':'2026-03-01T10:00:00Z'}]}")));
            StringAssert.Contains("LeaderboardEntry", e.Message);
            StringAssert.Contains("\"playerId\"", e.Message);
            StringAssert.Contains("$.entries[1].playerId", e.Message);
        }

        [Test]
        public void LeaderboardEntry_FromSubmitScoreResult_ReadsUpdated()
        {
            var e = LeaderboardEntry.FromJson(J("{'rank':3,'playerId':'" + PlayerA + "','displayName':'Ada','score':1234.5,'metadata':{'map':'docks'},'updatedAt':'2026-03-01T10:00:00.123456Z','updated':false}"));
            Assert.AreEqual(3L, e.Rank);
            Assert.AreEqual(1234.5, e.Score);
            Assert.AreEqual(false, e.Updated);
            Assert.AreEqual(Q("{'map':'docks'}"), e.Metadata);
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0).AddTicks(1234560), e.UpdatedAt);
        }

        [Test]
        public void LeaderboardEntry_FromPlayerEntry_ReadsAboveAndBelow()
        {
            var e = LeaderboardEntry.FromJson(J("{'rank':2,'playerId':'" + PlayerA + "','displayName':'Ada','score':50,'metadata':null,'updatedAt':'2026-03-01T10:00:00Z'," +
                                                "'above':[" + Entry(1, PlayerB, "Bo", "60", "null") + "],'below':[]}"));
            Assert.AreEqual(1, e.Above.Count);
            Assert.AreEqual(PlayerB, e.Above[0].PlayerId);
            Assert.AreEqual(1L, e.Above[0].Rank);
            Assert.AreEqual(0, e.Above[0].Above.Count);
            Assert.AreEqual(0, e.Below.Count);
            Assert.IsNull(e.Updated);
        }

        [Test]
        public void LeaderboardEntry_MetadataThatIsNotAnObject_Throws()
        {
            var e = Assert.Throws<JsonException>(() => LeaderboardEntry.FromJson(J(Entry(1, PlayerA, "Ada", "1", "'text'"))));
            StringAssert.Contains("\"metadata\"", e.Message);
        }

        [Test]
        public void LeaderboardEntry_NullForAnOptionalField_ReadsAsAbsent()
        {
            var e = LeaderboardEntry.FromJson(J("{'rank':2,'playerId':'" + PlayerA + "','displayName':'Ada','score':50,'metadata':null,'updatedAt':'2026-03-01T10:00:00Z','updated':null,'above':null}"));
            Assert.IsNull(e.Updated);
            Assert.AreEqual(0, e.Above.Count);
        }

        [Test]
        public void CurrencyBalance_ListFromJson_ReadsNegativeAndMaximalBalances()
        {
            var list = CurrencyBalance.ListFromJson(J("[{'id':'coins','name':'Coins','balance':9007199254740991},{'id':'debt','name':'Debt','balance':-9007199254740991},{'id':'gems','name':'Gems','balance':0}]"));
            Assert.AreEqual(3, list.Count);
            Assert.AreEqual(MaxSafe, list[0].Balance);
            Assert.AreEqual(-MaxSafe, list[1].Balance);
            Assert.AreEqual("Gems", list[2].Name);
        }

        [Test]
        public void CurrencyChange_ReadsTheTransactionId()
        {
            var c = CurrencyChange.FromJson(J("{'id':'coins','name':'Coins','balance':105,'transactionId':'" + TxId + "'}"));
            Assert.AreEqual("coins", c.Id);
            Assert.AreEqual(105L, c.Balance);
            Assert.AreEqual(TxId, c.TransactionId);
        }

        [Test]
        public void InventoryEntry_ListFromJson_ReadsItems()
        {
            var list = InventoryEntry.ListFromJson(J("[{'itemId':'potion','name':'Potion','quantity':3,'updatedAt':'2026-03-01T10:00:00Z'}]"));
            Assert.AreEqual("potion", list[0].ItemId);
            Assert.AreEqual(3L, list[0].Quantity);
        }

        [Test]
        public void PurchaseResult_ReadsBalancesAndInventory()
        {
            var p = PurchaseResult.FromJson(J("{'transactionId':'" + TxId + "','purchaseId':'buy-potion','quantity':2,'balances':[{'id':'coins','balance':80}],'inventory':[{'itemId':'potion','quantity':5}],'extra':true}"));
            Assert.AreEqual(TxId, p.TransactionId);
            Assert.AreEqual("buy-potion", p.PurchaseId);
            Assert.AreEqual(2L, p.Quantity);
            Assert.AreEqual("coins", p.Balances[0].Id);
            Assert.AreEqual(80L, p.Balances[0].Balance);
            Assert.AreEqual("potion", p.Inventory[0].ItemId);
            Assert.AreEqual(5L, p.Inventory[0].Quantity);
        }

        [Test]
        public void ReceiptResult_ReadsTheGrantItsBalancesAndInventory()
        {
            var r = ReceiptResult.FromJson(J("{'receiptId':'" + TxId + "','store':'apple','storeTransactionId':'2000000123','productId':'gems-500','quantity':2," +
                "'environment':'sandbox','status':'granted','replayed':false,'grant':{'transactionId':'" + TxId + "'," +
                "'balances':[{'id':'gems','balance':1000}],'inventory':[{'itemId':'vip-pass','quantity':1}]},'newer':1}"));
            Assert.AreEqual(TxId, r.ReceiptId);
            Assert.AreEqual(Store.Apple, r.Store);
            Assert.AreEqual("2000000123", r.StoreTransactionId);
            Assert.AreEqual("gems-500", r.ProductId);
            Assert.AreEqual(2L, r.Quantity);
            Assert.AreEqual(StoreEnvironment.Sandbox, r.Environment);
            Assert.AreEqual(ReceiptStatus.Granted, r.Status);
            Assert.IsFalse(r.Replayed);
            Assert.AreEqual(TxId, r.Grant.TransactionId);
            Assert.AreEqual("gems", r.Grant.Balances[0].Id);
            Assert.AreEqual(1000L, r.Grant.Balances[0].Balance);
            Assert.AreEqual("vip-pass", r.Grant.Inventory[0].ItemId);
            Assert.AreEqual(1L, r.Grant.Inventory[0].Quantity);
        }

        [Test]
        public void ReceiptResult_MissingGrant_ThrowsNamingTheField()
        {
            var e = Assert.Throws<JsonException>(() => ReceiptResult.FromJson(J("{'receiptId':'" + TxId + "','store':'google','storeTransactionId':'GPA.1'," +
                "'productId':'gems-500','quantity':1,'environment':'production','status':'refunded','replayed':true}")));
            StringAssert.Contains("ReceiptResult", e.Message);
            StringAssert.Contains("\"grant\"", e.Message);
        }

        [Test]
        public void SteamOrder_NullSteamUrl_IsKept()
        {
            var o = SteamOrder.FromJson(J("{'orderId':'123456789','transId':'987','steamUrl':null}"));
            Assert.AreEqual("123456789", o.OrderId);
            Assert.AreEqual("987", o.TransId);
            Assert.IsNull(o.SteamUrl);
        }

        [Test]
        public void EconomyTransactionPage_ReadsTransactionsSourcesAndCursor()
        {
            var page = EconomyTransactionPage.FromJson(J("{'transactions':[" +
                "{'id':'" + TxId + "','kind':'purchase','purchaseId':'buy-potion','source':null,'currencies':[{'id':'coins','delta':-20,'balance':80}],'items':[{'itemId':'potion','delta':1,'quantity':5}],'createdAt':'2026-03-01T10:00:00.000Z'}," +
                "{'id':'" + TxId + "','kind':'reward','purchaseId':null,'source':{'leaderboardId':'high-scores','period':'2026-W09'},'currencies':[{'id':'gems','delta':50,'balance':50}],'items':[],'createdAt':'2026-03-01T00:00:00Z'}" +
                "],'nextCursor':'eyJ0IjoxfQ'}"));
            Assert.AreEqual(2, page.Transactions.Count);
            var buy = page.Transactions[0];
            Assert.AreEqual(TransactionKind.Purchase, buy.Kind);
            Assert.AreEqual("buy-potion", buy.PurchaseId);
            Assert.IsNull(buy.Source);
            Assert.AreEqual(-20L, buy.Currencies[0].Delta);
            Assert.AreEqual(80L, buy.Currencies[0].Balance);
            Assert.AreEqual("potion", buy.Items[0].ItemId);
            Assert.AreEqual(5L, buy.Items[0].Quantity);
            var reward = page.Transactions[1];
            Assert.AreEqual(TransactionKind.Reward, reward.Kind);
            Assert.IsNull(reward.PurchaseId);
            Assert.AreEqual("high-scores", reward.Source.LeaderboardId);
            Assert.AreEqual("2026-W09", reward.Source.Period);
            Assert.AreEqual(0, reward.Items.Count);
            Assert.AreEqual("eyJ0IjoxfQ", page.NextCursor);
        }

        [Test]
        public void EconomyTransactionPage_LastPage_HasNullCursor()
        {
            var page = EconomyTransactionPage.FromJson(J("{'transactions':[],'nextCursor':null}"));
            Assert.AreEqual(0, page.Transactions.Count);
            Assert.IsNull(page.NextCursor);
        }

        [Test]
        public void EconomyTransaction_SourceMissingItsPeriod_NamesTheNestedClass()
        {
            var e = Assert.Throws<JsonException>(() => EconomyTransaction.FromJson(J("{'id':'" + TxId + "','kind':'reward','purchaseId':null,'source':{'leaderboardId':'b'},'currencies':[],'items':[],'createdAt':'2026-03-01T00:00:00Z'}")));
            StringAssert.Contains("EconomyTransaction.RewardSource", e.Message);
            StringAssert.Contains("\"period\"", e.Message);
            StringAssert.Contains("$.source.period", e.Message);
        }

        // ---- dates ---------------------------------------------------------------------------------

        static DateTimeOffset UpdatedAt(string text)
        {
            return InventoryEntry.FromJson(J("{'itemId':'i','name':'I','quantity':1,'updatedAt':'" + text + "'}")).UpdatedAt;
        }

        [Test]
        public void Dates_WithoutFractionalSeconds()
        {
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0), UpdatedAt("2026-03-01T10:00:00Z"));
        }

        [Test]
        public void Dates_WithMillisecondsAndMicrosecondsAndNanoseconds()
        {
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0, 123), UpdatedAt("2026-03-01T10:00:00.123Z"));
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0).AddTicks(1234567), UpdatedAt("2026-03-01T10:00:00.1234567Z"));
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0).AddTicks(1234567), UpdatedAt("2026-03-01T10:00:00.123456789Z"), "beyond 100 ns is cut");
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0, 500), UpdatedAt("2026-03-01T10:00:00.5Z"));
        }

        [Test]
        public void Dates_WithOffsets_KeepTheOffsetAndTheInstant()
        {
            var east = UpdatedAt("2026-03-01T12:30:00.250+02:30");
            Assert.AreEqual(new TimeSpan(2, 30, 0), east.Offset);
            Assert.AreEqual(Utc(2026, 3, 1, 10, 0, 0, 250), east);
            var west = UpdatedAt("2026-02-28T19:00:00-05:00");
            Assert.AreEqual(TimeSpan.FromHours(-5), west.Offset);
            Assert.AreEqual(Utc(2026, 3, 1, 0, 0, 0), west.ToUniversalTime());
            Assert.AreEqual(TimeSpan.Zero, UpdatedAt("2026-03-01T10:00:00+00:00").Offset);
        }

        [Test]
        public void Dates_LeapDay()
        {
            Assert.AreEqual(Utc(2028, 2, 29, 23, 59, 59, 999), UpdatedAt("2028-02-29T23:59:59.999Z"));
        }

        [Test]
        public void Dates_Malformed_ThrowJsonExceptionNamingTheField()
        {
            var bad = new[]
            {
                "2026-03-01", "2026-03-01T10:00:00", "2026-03-01 10:00:00Z", "2026-13-01T10:00:00Z", "2026-02-30T10:00:00Z",
                "2026-03-01T24:00:00Z", "2026-03-01T10:00:60Z", "2026-03-01T10:00:00.Z", "2026-03-01T10:00:00+0200",
                "2026-03-01T10:00:00+15:00", "2026-03-01T10:00:00Zjunk", "yesterday", "",
            };
            foreach (var text in bad)
            {
                var e = Assert.Throws<JsonException>(() => UpdatedAt(text), text);
                StringAssert.Contains("InventoryEntry", e.Message, text);
                StringAssert.Contains("\"updatedAt\"", e.Message, text);
            }
        }

        [Test]
        public void Dates_ANumberInsteadOfAString_Throws()
        {
            var e = Assert.Throws<JsonException>(() => InventoryEntry.FromJson(J("{'itemId':'i','name':'I','quantity':1,'updatedAt':1700000000000}")));
            StringAssert.Contains("\"updatedAt\"", e.Message);
        }

        // ---- bodies --------------------------------------------------------------------------------

        [Test]
        public void AnonymousBody_WithoutDeviceSecret_IsAnEmptyObject()
        {
            Assert.AreEqual("{}", new AnonymousBody().ToJson().ToJson());
            Assert.AreEqual(Q("{'deviceSecret':'q3Zb1sV0r0cQm8q6mS1m4a2n9Yx7Kp0H2d5Jt8LwXeA'}"),
                            new AnonymousBody { DeviceSecret = "q3Zb1sV0r0cQm8q6mS1m4a2n9Yx7Kp0H2d5Jt8LwXeA" }.ToJson().ToJson());
        }

        [Test]
        public void RegisterBody_OmitsANullDisplayName()
        {
            Assert.AreEqual(Q("{'email':'ada@example.com','password':'correct horse'}"), new RegisterBody { Email = "ada@example.com", Password = "correct horse" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'email':'ada@example.com','password':'correct horse','displayName':'Ada'}"),
                            new RegisterBody { Email = "ada@example.com", Password = "correct horse", DisplayName = "Ada" }.ToJson().ToJson());
        }

        [Test]
        public void AuthBodies_SerialiseTheirFieldsInContractOrder()
        {
            Assert.AreEqual(Q("{'email':'a@b.c','password':'pw'}"), new LoginBody { Email = "a@b.c", Password = "pw" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'email':'a@b.c'}"), new PasswordResetBody { Email = "a@b.c" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'email':'a@b.c','code':'048213','password':'new password'}"),
                            new PasswordResetConfirmBody { Email = "a@b.c", Code = "048213", Password = "new password" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'code':'ABCD-EFGH-JKLM-NPQR'}"), new VerifyEmailBody { Code = "ABCD-EFGH-JKLM-NPQR" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'provider':'google','token':'eyJ.x.y'}"), new IdpBody { Provider = "google", Token = "eyJ.x.y" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'refreshToken':'rt_1'}"), new RefreshBody { RefreshToken = "rt_1" }.ToJson().ToJson());
        }

        [Test]
        public void Bodies_EscapeStrings()
        {
            // (control characters: the JSON writer's own tests; their escape form is its choice)
            Assert.AreEqual("{\"email\":\"a\\\"b\\\\c@x\",\"password\":\"p\u00e9\"}", new LoginBody { Email = "a\"b\\c@x", Password = "p\u00e9" }.ToJson().ToJson());
        }

        [Test]
        public void Bodies_RequiredStringLeftNull_ThrowsArgumentExceptionNamingTheField()
        {
            var e = Assert.Throws<ArgumentException>(() => new LoginBody { Password = "pw" }.ToJson());
            StringAssert.Contains("LoginBody.Email", e.Message);
        }

        [Test]
        public void PatchProfileBody_NullDisplayName_IsWrittenAsNull()
        {
            Assert.AreEqual(Q("{'displayName':null}"), new PatchProfileBody { DisplayName = null }.ToJson().ToJson());
            Assert.AreEqual(Q("{'displayName':'Ada'}"), new PatchProfileBody { DisplayName = "Ada" }.ToJson().ToJson());
        }

        [Test]
        public void DeleteAccountBody_PasswordIsOptional()
        {
            Assert.AreEqual("{}", new DeleteAccountBody().ToJson().ToJson());
            Assert.AreEqual(Q("{'password':'pw'}"), new DeleteAccountBody { Password = "pw" }.ToJson().ToJson());
        }

        [Test]
        public void PutPlayerDataBody_ValueIsParsedAndWrittenCompact()
        {
            Assert.AreEqual(Q("{'value':{'volume':3,'muted':false}}"), new PutPlayerDataBody { Value = " { \"volume\" : 3, \"muted\" : false } " }.ToJson().ToJson());
            Assert.AreEqual(Q("{'value':[1,'two',null],'visibility':'public'}"), new PutPlayerDataBody { Value = "[1,\"two\",null]", Visibility = Visibility.Public }.ToJson().ToJson());
            Assert.AreEqual(Q("{'value':null}"), new PutPlayerDataBody { Value = "null" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'value':9007199254740991}"), new PutPlayerDataBody { Value = "9007199254740991" }.ToJson().ToJson());
        }

        [Test]
        public void PutPlayerDataBody_MalformedValue_ThrowsArgumentExceptionNamingTheField()
        {
            var e = Assert.Throws<ArgumentException>(() => new PutPlayerDataBody { Value = "{\"volume\":" }.ToJson());
            StringAssert.Contains("PutPlayerDataBody.Value", e.Message);
            Assert.IsInstanceOf<JsonException>(e.InnerException);
            var missing = Assert.Throws<ArgumentException>(() => new PutPlayerDataBody().ToJson());
            StringAssert.Contains("PutPlayerDataBody.Value", missing.Message);
        }

        [Test]
        public void PutSaveBody_DataAndMeta()
        {
            Assert.AreEqual(Q("{'data':{'level':4}}"), new PutSaveBody { Data = "{\"level\":4}" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'data':{'level':4},'meta':{'label':'Chapter 3','playtimeSeconds':5400}}"),
                            new PutSaveBody { Data = "{\"level\":4}", Meta = "{\"label\": \"Chapter 3\", \"playtimeSeconds\": 5400}" }.ToJson().ToJson());
        }

        [Test]
        public void PutSaveBody_MalformedDataOrNonObjectMeta_ThrowArgumentExceptionNamingTheField()
        {
            var data = Assert.Throws<ArgumentException>(() => new PutSaveBody { Data = "{level:4}" }.ToJson());
            StringAssert.Contains("PutSaveBody.Data", data.Message);
            var meta = Assert.Throws<ArgumentException>(() => new PutSaveBody { Data = "1", Meta = "[\"label\"]" }.ToJson());
            StringAssert.Contains("PutSaveBody.Meta", meta.Message);
            var badMeta = Assert.Throws<ArgumentException>(() => new PutSaveBody { Data = "1", Meta = "{\"a\":1,}" }.ToJson());
            StringAssert.Contains("PutSaveBody.Meta", badMeta.Message);
        }

        [Test]
        public void PatchPlayerDataBody_SetAndDelete()
        {
            var body = new PatchPlayerDataBody
            {
                Set = new Dictionary<string, PatchPlayerDataBody.SetOp>
                {
                    { "settings", new PatchPlayerDataBody.SetOp { Value = "{ \"volume\": 3 }" } },
                    { "profile.card", new PatchPlayerDataBody.SetOp { Value = "\"hi\"", Visibility = Visibility.Public, Version = 0 } },
                    { "progress", new PatchPlayerDataBody.SetOp { Value = "42", Version = MaxSafe } },
                },
                Delete = new List<string> { "old", "older" },
            };
            Assert.AreEqual(Q("{'set':{'settings':{'value':{'volume':3}},'profile.card':{'value':'hi','visibility':'public','version':0},'progress':{'value':42,'version':9007199254740991}}," +
                              "'delete':['old','older']}"), body.ToJson().ToJson());
        }

        [Test]
        public void PatchPlayerDataBody_Empty_IsAnEmptyObject()
        {
            Assert.AreEqual("{}", new PatchPlayerDataBody().ToJson().ToJson());
        }

        [Test]
        public void PatchPlayerDataBody_MalformedSetValue_ThrowsArgumentExceptionNamingTheKey()
        {
            var body = new PatchPlayerDataBody { Set = new Dictionary<string, PatchPlayerDataBody.SetOp> { { "settings", new PatchPlayerDataBody.SetOp { Value = "{oops}" } } } };
            var e = Assert.Throws<ArgumentException>(() => body.ToJson());
            StringAssert.Contains("PatchPlayerDataBody.Set[\"settings\"].Value", e.Message);
        }

        [Test]
        public void PatchPlayerDataBody_NullOperationOrDeleteKey_ThrowsArgumentException()
        {
            var nullOp = new PatchPlayerDataBody { Set = new Dictionary<string, PatchPlayerDataBody.SetOp> { { "settings", null } } };
            StringAssert.Contains("PatchPlayerDataBody.Set[\"settings\"]", Assert.Throws<ArgumentException>(() => nullOp.ToJson()).Message);
            var nullKey = new PatchPlayerDataBody { Delete = new List<string> { "a", null } };
            StringAssert.Contains("PatchPlayerDataBody.Delete[1]", Assert.Throws<ArgumentException>(() => nullKey.ToJson()).Message);
        }

        [Test]
        public void SubmitScoreBody_ScoreAndOptionalMetadata()
        {
            Assert.AreEqual(Q("{'score':4200.5}"), new SubmitScoreBody { Score = 4200.5 }.ToJson().ToJson());
            Assert.AreEqual(Q("{'score':-0.25,'metadata':{'map':'docks','laps':[1,2]}}"),
                            new SubmitScoreBody { Score = -0.25, Metadata = "{\"map\":\"docks\",\"laps\":[1,2]}" }.ToJson().ToJson());
        }

        [Test]
        public void SubmitScoreBody_WholeScore_RoundTripsExactly()
        {
            var node = new SubmitScoreBody { Score = MaxSafe }.ToJson();
            Assert.AreEqual((double)MaxSafe, JsonNode.Parse(node.ToJson())["score"].AsDouble());
            Assert.AreEqual(Q("{'score':4200}"), new SubmitScoreBody { Score = 4200 }.ToJson().ToJson(), "a whole score is written as JavaScript writes it");
        }

        [Test]
        public void SubmitScoreBody_NonFiniteScoreOrNonObjectMetadata_ThrowArgumentException()
        {
            StringAssert.Contains("SubmitScoreBody.Score", Assert.Throws<ArgumentException>(() => new SubmitScoreBody { Score = double.NaN }.ToJson()).Message);
            StringAssert.Contains("SubmitScoreBody.Score", Assert.Throws<ArgumentException>(() => new SubmitScoreBody { Score = double.PositiveInfinity }.ToJson()).Message);
            StringAssert.Contains("SubmitScoreBody.Metadata", Assert.Throws<ArgumentException>(() => new SubmitScoreBody { Score = 1, Metadata = "7" }.ToJson()).Message);
        }

        [Test]
        public void CurrencyAmountBody_WritesTheAmountExactly()
        {
            Assert.AreEqual(Q("{'amount':5}"), new CurrencyAmountBody { Amount = 5 }.ToJson().ToJson());
            Assert.AreEqual(Q("{'amount':9007199254740991}"), new CurrencyAmountBody { Amount = MaxSafe }.ToJson().ToJson());
        }

        [Test]
        public void PurchaseBody_QuantityIsOptional()
        {
            Assert.AreEqual(Q("{'purchaseId':'buy-potion'}"), new PurchaseBody { PurchaseId = "buy-potion" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'purchaseId':'buy-potion','quantity':3}"), new PurchaseBody { PurchaseId = "buy-potion", Quantity = 3 }.ToJson().ToJson());
        }

        [Test]
        public void Receipt_EachStoreWritesOnlyItsOwnFields()
        {
            Assert.AreEqual(Q("{'store':'apple','signedTransaction':'h.p.s'}"), Receipt.Apple("h.p.s").ToJson().ToJson());
            Assert.AreEqual(Q("{'store':'google','productId':'gems_500','purchaseToken':'tok'}"), Receipt.GooglePlay("gems_500", "tok").ToJson().ToJson());
            Assert.AreEqual(Q("{'store':'steam','orderId':'42'}"), Receipt.Steam("42").ToJson().ToJson());
        }

        [Test]
        public void Receipt_MissingPart_ThrowsArgumentExceptionNamingIt()
        {
            StringAssert.Contains("signedTransaction", Assert.Throws<ArgumentException>(() => Receipt.Apple("")).Message);
            StringAssert.Contains("purchaseToken", Assert.Throws<ArgumentException>(() => Receipt.GooglePlay("gems_500", null)).Message);
            StringAssert.Contains("orderId", Assert.Throws<ArgumentException>(() => Receipt.Steam(null)).Message);
        }

        [Test]
        public void SteamOrderBody_LanguageIsOptional()
        {
            Assert.AreEqual(Q("{'productId':'gems-500','steamId':'76561197960287930'}"),
                new SteamOrderBody { ProductId = "gems-500", SteamId = "76561197960287930" }.ToJson().ToJson());
            Assert.AreEqual(Q("{'productId':'gems-500','steamId':'76561197960287930','language':'de'}"),
                new SteamOrderBody { ProductId = "gems-500", SteamId = "76561197960287930", Language = "de" }.ToJson().ToJson());
        }

        // ---- constants -----------------------------------------------------------------------------

        [Test]
        public void ErrorCodes_AreTheContractsCodesInPascalCase()
        {
            Assert.AreEqual("INVALID_JSON", ErrorCodes.InvalidJson);
            Assert.AreEqual("INVALID_TOKEN", ErrorCodes.InvalidToken);
            Assert.AreEqual("VERSION_CONFLICT", ErrorCodes.VersionConflict);
            Assert.AreEqual("IDEMPOTENCY_IN_PROGRESS", ErrorCodes.IdempotencyInProgress);
            Assert.AreEqual("RATE_LIMITED", ErrorCodes.RateLimited);
            Assert.AreEqual("REQUEST_HEADER_FIELDS_TOO_LARGE", ErrorCodes.RequestHeaderFieldsTooLarge);
            Assert.AreEqual("SERVICE_UNAVAILABLE", ErrorCodes.ServiceUnavailable);
        }

        [Test]
        public void EnumConstants_MatchTheContract()
        {
            Assert.AreEqual("private", Visibility.Private);
            Assert.AreEqual("public", Visibility.Public);
            Assert.AreEqual("protected", Visibility.Protected);
            Assert.AreEqual("desc", SortOrder.Desc);
            Assert.AreEqual("asc", SortOrder.Asc);
            Assert.AreEqual("add", TransactionKind.Add);
            Assert.AreEqual("reward", TransactionKind.Reward);
            Assert.AreEqual("store_purchase", TransactionKind.StorePurchase);
            Assert.AreEqual("steam", Store.Steam);
            Assert.AreEqual("production", StoreEnvironment.Production);
            Assert.AreEqual("refunded", ReceiptStatus.Refunded);
        }

        [Test]
        public void ApiOperations_ListEveryOperationOnceAsMethodAndPathTemplate()
        {
            var all = ApiOperations.All;
            CollectionAssert.AllItemsAreUnique(all);
            CollectionAssert.Contains(all, "POST /auth/anonymous");
            CollectionAssert.Contains(all, "PATCH /players/{id}");
            CollectionAssert.Contains(all, "PUT /players/{id}/data/{key}");
            CollectionAssert.Contains(all, "DELETE /saves/{key}");
            CollectionAssert.Contains(all, "POST /economy/currencies/{id}/subtract");
            CollectionAssert.Contains(all, "GET /economy/transactions");
            Assert.AreEqual("POST /auth/anonymous", all[0]);
            foreach (var op in all) StringAssert.IsMatch("^(GET|POST|PUT|PATCH|DELETE) /[a-z/{}-]+$", op);
        }
    }
}

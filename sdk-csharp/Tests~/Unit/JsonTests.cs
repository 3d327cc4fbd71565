using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using GameBackend.Json;
using NUnit.Framework;

namespace GameBackend.Tests
{
    [TestFixture]
    public class JsonTests
    {
        private static JsonException Refused(string text)
        {
            return Assert.Throws<JsonException>(() => JsonNode.Parse(text), "should refuse: " + text);
        }

        private static string Nest(string open, string inner, string close, int depth)
        {
            var sb = new StringBuilder();
            for (int i = 0; i < depth; i++) sb.Append(open);
            sb.Append(inner);
            for (int i = 0; i < depth; i++) sb.Append(close);
            return sb.ToString();
        }

        // ------------------------------------------------------------ round trips

        [Test]
        public void Parse_ThenToJson_GivesCompactTextWithMembersInDocumentOrder()
        {
            var text = " {\n\t\"z\" : [ 1 , -2.5e+3 , true , false , null ] ,\r\n \"a\" : { \"y\" : \"s\" , \"b\" : { } } , \"m\" : [ ] } ";
            Assert.AreEqual("{\"z\":[1,-2.5e+3,true,false,null],\"a\":{\"y\":\"s\",\"b\":{}},\"m\":[]}", JsonNode.Parse(text).ToJson());
        }

        [Test]
        public void ToJson_OfParsedText_ParsesBackToTheSameText()
        {
            var text = "[{\"k\":\"v\\n\\u0000\\\"\",\"n\":[0.1,1E5,-0,123456789012345678901234567890]},\"\\ud83d\\ude00\",[[[]]],{}]";
            var once = JsonNode.Parse(text).ToJson();
            Assert.AreEqual(once, JsonNode.Parse(once).ToJson());
        }

        [Test]
        public void Parse_AcceptsEachScalarAsTheWholeText()
        {
            Assert.AreEqual(JsonKind.Null, JsonNode.Parse("null").Kind);
            Assert.IsTrue(JsonNode.Parse(" true ").AsBool());
            Assert.IsFalse(JsonNode.Parse("false").AsBool());
            Assert.AreEqual(42L, JsonNode.Parse("\t42\r\n").AsLong());
            Assert.AreEqual("x", JsonNode.Parse("\"x\"").AsString());
        }

        [Test]
        public void ToString_IsTheSameAsToJson()
        {
            var node = JsonNode.NewObject().Set("a", JsonNode.From(1L)).Set("b", JsonNode.NewArray().Add(JsonNode.From("x")));
            Assert.AreEqual("{\"a\":1,\"b\":[\"x\"]}", node.ToString());
            Assert.AreEqual(node.ToJson(), node.ToString());
        }

        // ------------------------------------------------------------ strings and escapes

        [Test]
        public void Parse_DecodesEveryShortEscape()
        {
            Assert.AreEqual("\"\\/\b\f\n\r\t", JsonNode.Parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"").AsString());
        }

        [Test]
        public void Parse_DecodesUnicodeEscapesInEitherCase()
        {
            Assert.AreEqual("A\u00e9\u4e2d\uffff\u0000", JsonNode.Parse("\"\\u0041\\u00E9\\u4e2D\\uFFFF\\u0000\"").AsString());
        }

        [Test]
        public void ToJson_EscapesQuoteBackslashAndEveryControlCharacter()
        {
            var expected = new[]
            {
                "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
                "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f",
                "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
                "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
            };
            for (int c = 0; c < 0x20; c++)
            {
                Assert.AreEqual("\"a" + expected[c] + "b\"", JsonNode.From("a" + (char)c + "b").ToJson(), "U+" + c.ToString("X4"));
            }
            Assert.AreEqual("\"\\\"\\\\\"", JsonNode.From("\"\\").ToJson());
        }

        [Test]
        public void ToJson_EscapesLineAndParagraphSeparators()
        {
            Assert.AreEqual("\"a\\u2028b\\u2029c\"", JsonNode.From("a\u2028b\u2029c").ToJson());
            Assert.AreEqual("\"\\u2028\"", JsonNode.Parse("\"\u2028\"").ToJson());
        }

        [Test]
        public void ToJson_LeavesSlashDelAndOtherNonAsciiAsIs()
        {
            Assert.AreEqual("\"/\u007f\u00e9\u4e2d\u2027\u202a\ufeff\uffff\"", JsonNode.From("/\u007f\u00e9\u4e2d\u2027\u202a\ufeff\uffff").ToJson());
        }

        [Test]
        public void EveryBmpCharacterExceptSurrogates_RoundTripsThroughToJsonAndParse()
        {
            var sb = new StringBuilder();
            for (int c = 0; c <= 0xFFFF; c++)
            {
                if (c >= 0xD800 && c <= 0xDFFF) continue;
                sb.Append((char)c);
            }
            var s = sb.ToString();
            Assert.AreEqual(s, JsonNode.Parse(JsonNode.From(s).ToJson()).AsString());
        }

        [Test]
        public void Parse_CombinesAnEscapedSurrogatePairIntoOneEmoji()
        {
            var s = JsonNode.Parse("\"\\ud83d\\ude00\"").AsString();
            Assert.AreEqual(2, s.Length);
            Assert.AreEqual(0x1F600, char.ConvertToUtf32(s, 0));
            Assert.AreEqual("\"\U0001F600\"", JsonNode.Parse("\"\\uD83D\\uDE00\"").ToJson());
        }

        [Test]
        public void Parse_AcceptsRawSurrogatePairsAndToJsonWritesThemAsIs()
        {
            var text = "\"a\U0001F600b\U0010FFFF\U00010000\"";
            Assert.AreEqual("a\U0001F600b\U0010FFFF\U00010000", JsonNode.Parse(text).AsString());
            Assert.AreEqual(text, JsonNode.Parse(text).ToJson());
        }

        [TestCase("\"\\ud800\"", 1)]
        [TestCase("\"\\udbff x\"", 1)]
        [TestCase("\"\\udc00\"", 1)]
        [TestCase("\"ab\\udfff\"", 3)]
        [TestCase("\"\\ud83d\\u0041\"", 1)]
        [TestCase("\"\\ud83d\\ud83d\"", 1)]
        [TestCase("\"\\ud83d\\n\"", 1)]
        [TestCase("\"\\ude00\\ud83d\"", 1)]
        public void Parse_RefusesLoneSurrogateEscapes(string text, int position)
        {
            Assert.AreEqual(position, Refused(text).Position);
        }

        [Test]
        public void Parse_RefusesRawLoneSurrogates()
        {
            Assert.AreEqual(2, Refused("\"a\ud800\"").Position);
            Assert.AreEqual(1, Refused("\"\udc00\ud800\"").Position);
            Assert.AreEqual(4, Refused("\"a\\n\ude00\"").Position);
        }

        [Test]
        public void ToJson_WritesALoneSurrogateAsTheReplacementCharacter()
        {
            var json = JsonNode.From("a\ud800b\udc00" + "c\ud83d").ToJson();
            Assert.AreEqual("\"a\ufffdb\ufffdc\ufffd\"", json);
            Assert.AreEqual("a\ufffdb\ufffdc\ufffd", JsonNode.Parse(json).AsString());
        }

        [Test]
        public void ObjectKeys_AreEscapedAndDecodedLikeStrings()
        {
            var node = JsonNode.NewObject().Set("a\"\n\u2028\U0001F600", JsonNode.From(1L));
            var json = node.ToJson();
            Assert.AreEqual("{\"a\\\"\\n\\u2028\U0001F600\":1}", json);
            Assert.AreEqual("a\"\n\u2028\U0001F600", JsonNode.Parse(json).Keys.Single());
        }

        // ------------------------------------------------------------ numbers

        [Test]
        public void Number_Zero()
        {
            var n = JsonNode.Parse("0");
            Assert.AreEqual(JsonKind.Number, n.Kind);
            Assert.AreEqual(0L, n.AsLong());
            Assert.AreEqual(0.0, n.AsDouble());
            Assert.AreEqual("0", n.RawNumber);
        }

        [Test]
        public void Number_NegativeZero_KeepsItsLexemeAndSign()
        {
            var n = JsonNode.Parse("-0");
            Assert.AreEqual("-0", n.RawNumber);
            Assert.AreEqual("-0", n.ToJson());
            Assert.AreEqual(0L, n.AsLong());
            Assert.AreEqual(double.NegativeInfinity, 1 / n.AsDouble());
            Assert.AreEqual(double.NegativeInfinity, 1 / JsonNode.Parse("-0.0e5").AsDouble());
            Assert.AreEqual("-0", JsonNode.From(-0.0).ToJson());
            Assert.AreEqual("0", JsonNode.From(0.0).ToJson());
        }

        [Test]
        public void Number_1e308_IsReadAndKept()
        {
            var n = JsonNode.Parse("1e308");
            Assert.AreEqual(1e308, n.AsDouble());
            Assert.AreEqual("1e308", n.ToJson());
            Assert.Throws<JsonException>(() => n.AsLong());
        }

        [Test]
        public void Number_TwoToThe53_AndOneMore_AreExactAsLong()
        {
            Assert.AreEqual(9007199254740992L, JsonNode.Parse("9007199254740992").AsLong());
            Assert.AreEqual(9007199254740993L, JsonNode.Parse("9007199254740993").AsLong());
            Assert.AreEqual(-9007199254740993L, JsonNode.Parse("-9007199254740993").AsLong());
            Assert.AreEqual("9007199254740993", JsonNode.Parse("9007199254740993").ToJson());
        }

        [Test]
        public void Number_LongRange_IsCheckedExactlyByAsLong()
        {
            Assert.AreEqual(long.MinValue, JsonNode.Parse("-9223372036854775808").AsLong());
            Assert.AreEqual(long.MaxValue, JsonNode.Parse("9223372036854775807").AsLong());
            Assert.Throws<JsonException>(() => JsonNode.Parse("9223372036854775808").AsLong());
            Assert.Throws<JsonException>(() => JsonNode.Parse("-9223372036854775809").AsLong());
            Assert.Throws<JsonException>(() => JsonNode.Parse("123456789012345678901234567890").AsLong());
            Assert.AreEqual("-9223372036854775808", JsonNode.From(long.MinValue).ToJson());
            Assert.AreEqual("9223372036854775807", JsonNode.From(long.MaxValue).ToJson());
        }

        [TestCase("1.0")]
        [TestCase("1e2")]
        [TestCase("1E0")]
        [TestCase("-5.5")]
        [TestCase("0.0")]
        public void AsLong_RefusesLexemesWithAFractionOrExponent(string lexeme)
        {
            var n = JsonNode.Parse(lexeme);
            var e = Assert.Throws<JsonException>(() => n.AsLong());
            Assert.AreEqual(-1, e.Position);
            StringAssert.Contains(lexeme, e.Message);
        }

        [Test]
        public void Number_SmallFraction_1_5e_7()
        {
            var n = JsonNode.Parse("1.5e-7");
            Assert.AreEqual(1.5e-7, n.AsDouble());
            Assert.AreEqual("1.5e-7", n.ToJson());
            Assert.AreEqual("1.5e-7", JsonNode.From(1.5e-7).ToJson());
        }

        [Test]
        public void Number_LongLexemes_AreKeptExactly()
        {
            foreach (var lexeme in new[]
            {
                "123456789012345678901234567890.123456789012345678901234567890e-5",
                "-0.000000000000000000000000000000000000000001",
                "1E+400", "1e-400", "2.50", "1.000000000000000000001", "100000000000000000000000000000",
            })
            {
                Assert.AreEqual(lexeme, JsonNode.Parse(lexeme).RawNumber);
                Assert.AreEqual("[" + lexeme + "]", JsonNode.Parse("[" + lexeme + "]").ToJson());
            }
        }

        [Test]
        public void AsDouble_BeyondDoubleRange_IsRefusedAndTinyValuesBecomeZero()
        {
            Assert.Throws<JsonException>(() => JsonNode.Parse("1e400").AsDouble());
            Assert.Throws<JsonException>(() => JsonNode.Parse("-1e400").AsDouble());
            Assert.AreEqual(0.0, JsonNode.Parse("1e-400").AsDouble());
        }

        [Test]
        public void AsDouble_ReadsTheNearestDouble()
        {
            Assert.AreEqual(0.1, JsonNode.Parse("0.1").AsDouble());
            Assert.AreEqual(double.MaxValue, JsonNode.Parse("1.7976931348623157e308").AsDouble());
            Assert.AreEqual(double.Epsilon, JsonNode.Parse("5e-324").AsDouble());
            Assert.AreEqual(9007199254740992.0, JsonNode.Parse("9007199254740993").AsDouble());
            Assert.AreEqual(-2.5e-3, JsonNode.Parse("-2.5E-3").AsDouble());
        }

        [TestCase("1.7976931348623158e308", 0x7FEFFFFFFFFFFFFFL)]     // rounds down to double.MaxValue
        [TestCase("2.4703282292062328e-324", 1L)]                     // just above half of double.Epsilon
        [TestCase("2.4703282292062327e-324", 0L)]                     // just below it
        [TestCase("3e-324", 1L)]
        [TestCase("9007199254740993", 0x4340000000000000L)]          // 2^53 + 1: the tie goes to the even 2^53
        [TestCase("9007199254740995", 0x4340000000000002L)]          // 2^53 + 3: the tie goes to the even 2^53 + 4
        [TestCase("5.648755457115915e-261", 0x09E63BEC22F6F257L)]   // Mono's double.Parse is one unit off here
        [TestCase("0.1000000000000000055511151231257827021181583404541015625", 0x3FB999999999999AL)]   // 0.1 exactly
        [TestCase("0.10000000000000000555111512312578270211815834045410156250000000000000000001", 0x3FB999999999999AL)]
        public void AsDouble_RoundsToTheNearestDoubleExactly(string text, long bits)
        {
            Assert.AreEqual(bits, BitConverter.DoubleToInt64Bits(JsonNode.Parse(text).AsDouble()), text);
        }

        [Test]
        public void AsDouble_HandlesHugeDigitCountsAndExponents()
        {
            Assert.AreEqual(1.0, JsonNode.Parse("1" + new string('0', 5000) + "e-5000").AsDouble());
            Assert.AreEqual(0.1, JsonNode.Parse("0." + new string('0', 400) + "1e400").AsDouble());
            Assert.AreEqual(0.0, JsonNode.Parse("1e-99999999999999999999").AsDouble());
            Assert.AreEqual(double.NegativeInfinity, 1 / JsonNode.Parse("-1e-99999999999999999999").AsDouble());
            Assert.AreEqual(0.0, JsonNode.Parse("0e99999999999999999999").AsDouble());
            Assert.Throws<JsonException>(() => JsonNode.Parse("1e99999999999999999999").AsDouble());
            Assert.Throws<JsonException>(() => JsonNode.Parse("1.7976931348623159e308").AsDouble());
        }

        [TestCase(1.5, "1.5")]
        [TestCase(3.0, "3")]
        [TestCase(100.0, "100")]
        [TestCase(-1.0, "-1")]
        [TestCase(0.30000000000000004, "0.30000000000000004")]
        [TestCase(1e21, "1e+21")]
        [TestCase(1e20, "100000000000000000000")]
        [TestCase(123456789012345680000.0, "123456789012345680000")]
        [TestCase(1e-6, "0.000001")]
        [TestCase(1e-7, "1e-7")]
        [TestCase(-1.5e-7, "-1.5e-7")]
        [TestCase(1.23e-18, "1.23e-18")]
        [TestCase(2.5e-5, "0.000025")]
        [TestCase(5e-324, "5e-324")]
        [TestCase(2.2250738585072014e-308, "2.2250738585072014e-308")]
        [TestCase(1.7976931348623157e308, "1.7976931348623157e+308")]
        [TestCase(9007199254740992.0, "9007199254740992")]
        [TestCase(0.1, "0.1")]
        [TestCase(1.0 / 3, "0.3333333333333333")]
        [TestCase(-123.456, "-123.456")]
        public void FromDouble_WritesTheShortestRoundTripFormAsJavaScriptDoes(double value, string expected)
        {
            var json = JsonNode.From(value).ToJson();
            Assert.AreEqual(expected, json);
            Assert.AreEqual(value, JsonNode.Parse(json).AsDouble());
        }

        // Given as bits: mcs reads double literals with Mono's double.Parse, which is off for some of these.
        [TestCase(0x7758D9563E4B1ED8L, "8.012436601290304e+266")]     // Mono's "E15"/"R" give ...305e+266
        [TestCase(unchecked((long)0xC3A67E129DFD1A81UL), "-810376692832747600")]
        [TestCase(0x3EACB2E3EB9FEDDBL, "8.552906003429028e-7")]
        [TestCase(0x09E63BEC22F6F257L, "5.648755457115915e-261")]
        [TestCase(0x01AA74FE1C1E8908L, "1.2345678901234568e-300")]
        [TestCase(0x58L, "4.35e-322")]
        [TestCase(0x0010000000000000L, "2.2250738585072014e-308")]   // the smallest normal: a closer lower neighbour
        [TestCase(0x000FFFFFFFFFFFFFL, "2.225073858507201e-308")]    // the largest subnormal
        [TestCase(0x4340000000000001L, "9007199254740994")]
        [TestCase(0x4415AF1D78B58C40L, "100000000000000000000")]
        [TestCase(0x4415AF1D78B58C41L, "100000000000000020000")]
        public void FromDouble_OfTheseBits_WritesWhatJavaScriptWrites(long bits, string expected)
        {
            Assert.AreEqual(expected, JsonNode.From(BitConverter.Int64BitsToDouble(bits)).ToJson());
        }

        [Test]
        public void FromDouble_RefusesNaNAndInfinity()
        {
            Assert.Throws<ArgumentException>(() => JsonNode.From(double.NaN));
            Assert.Throws<ArgumentException>(() => JsonNode.From(double.PositiveInfinity));
            Assert.Throws<ArgumentException>(() => JsonNode.From(double.NegativeInfinity));
        }

        [Test]
        public void FromDouble_RandomDoubles_ReadBackExactly()
        {
            var random = new Random(33);
            var bytes = new byte[8];
            int checkedCount = 0;
            while (checkedCount < 20000)
            {
                random.NextBytes(bytes);
                double d = BitConverter.ToDouble(bytes, 0);
                if (double.IsNaN(d) || double.IsInfinity(d)) continue;
                checkedCount++;
                var json = JsonNode.From(d).ToJson();
                double back = JsonNode.Parse(json).AsDouble();
                if (BitConverter.DoubleToInt64Bits(back) != BitConverter.DoubleToInt64Bits(d))
                    Assert.Fail("{0:R} was written {1}, which reads back as {2:R}", d, json, back);
            }
        }

        [TestCase("0")]
        [TestCase("-0")]
        [TestCase("12")]
        [TestCase("-1.5e+10")]
        [TestCase("1E-2")]
        [TestCase("0.000")]
        public void NumberFromRaw_KeepsAValidLexeme(string raw)
        {
            var n = JsonNode.NumberFromRaw(raw);
            Assert.AreEqual(JsonKind.Number, n.Kind);
            Assert.AreEqual(raw, n.RawNumber);
            Assert.AreEqual(raw, n.ToJson());
        }

        [TestCase("", 0)]
        [TestCase("01", 1)]
        [TestCase("-01", 2)]
        [TestCase("1.", 2)]
        [TestCase(".5", 0)]
        [TestCase("+1", 0)]
        [TestCase("1e", 2)]
        [TestCase("1e+", 3)]
        [TestCase("-", 1)]
        [TestCase("NaN", 0)]
        [TestCase("Infinity", 0)]
        [TestCase(" 1", 0)]
        [TestCase("1 ", 1)]
        [TestCase("1x", 1)]
        [TestCase("0x10", 1)]
        [TestCase("1,5", 1)]
        public void NumberFromRaw_RefusesWhatIsNotAJsonNumber(string raw, int position)
        {
            var e = Assert.Throws<JsonException>(() => JsonNode.NumberFromRaw(raw));
            Assert.AreEqual(position, e.Position);
        }

        [Test]
        public void Numbers_AreCultureIndependent_UnderGermanCulture()
        {
            var thread = Thread.CurrentThread;
            var saved = thread.CurrentCulture;
            var savedUi = thread.CurrentUICulture;
            try
            {
                thread.CurrentCulture = new CultureInfo("de-DE");
                thread.CurrentUICulture = new CultureInfo("de-DE");
                Assert.AreEqual("1,5", 1.5.ToString(), "the culture really is German");
                Assert.AreEqual("1.5", JsonNode.From(1.5).ToJson());
                Assert.AreEqual("1234567.25", JsonNode.From(1234567.25).ToJson());
                Assert.AreEqual("-1.5e-7", JsonNode.From(-1.5e-7).ToJson());
                Assert.AreEqual("1e+21", JsonNode.From(1e21).ToJson());
                Assert.AreEqual("-1234567", JsonNode.From(-1234567L).ToJson());
                Assert.AreEqual(1.5, JsonNode.Parse("1.5").AsDouble());
                Assert.AreEqual(-2500.0, JsonNode.Parse("-2.5e3").AsDouble());
                Assert.AreEqual(-12L, JsonNode.Parse("-12").AsLong());
                Assert.Throws<JsonException>(() => JsonNode.Parse("1,5"));
            }
            finally
            {
                thread.CurrentCulture = saved;
                thread.CurrentUICulture = savedUi;
            }
        }

        [Test]
        public void Numbers_AreCultureIndependent_UnderCulturesWithOtherSignsAndDigits()
        {
            var thread = Thread.CurrentThread;
            var saved = thread.CurrentCulture;
            try
            {
                foreach (var name in new[] { "fr-FR", "tr-TR", "ar-SA", "fa-IR", "sv-SE" })
                {
                    thread.CurrentCulture = new CultureInfo(name);
                    Assert.AreEqual("-0.25", JsonNode.From(-0.25).ToJson(), name);
                    Assert.AreEqual("-1e-7", JsonNode.From(-1e-7).ToJson(), name);
                    Assert.AreEqual("-7", JsonNode.From(-7L).ToJson(), name);
                    Assert.AreEqual(-0.25, JsonNode.Parse("-0.25").AsDouble(), name);
                    Assert.AreEqual(-7L, JsonNode.Parse("-7").AsLong(), name);
                }
            }
            finally
            {
                thread.CurrentCulture = saved;
            }
        }

        // ------------------------------------------------------------ depth

        [Test]
        public void Parse_Accepts512NestedArraysAndObjects()
        {
            var arrays = Nest("[", "1", "]", 512);
            Assert.AreEqual(arrays, JsonNode.Parse(arrays).ToJson());
            var objects = Nest("{\"a\":", "1", "}", 512);
            Assert.AreEqual(objects, JsonNode.Parse(objects).ToJson());
        }

        [Test]
        public void Parse_Refuses513NestedArraysAtThe513thBracket()
        {
            var e = Refused(Nest("[", "", "]", 513));
            Assert.AreEqual(512, e.Position);
            StringAssert.Contains("512", e.Message);
        }

        [Test]
        public void Parse_Refuses513NestedObjectsAtThe513thBrace()
        {
            var e = Refused(Nest("{\"a\":", "1", "}", 513));
            Assert.AreEqual(512 * 5, e.Position);
        }

        [Test]
        public void Parse_Refuses100000OpenBracketsWithoutCrashing()
        {
            var e = Refused(new string('[', 100000));
            Assert.AreEqual(512, e.Position);
            var mixed = new StringBuilder();
            for (int i = 0; i < 50000; i++) mixed.Append(i % 2 == 0 ? "[" : "{\"k\":");
            Assert.AreEqual(JsonKind.Array, JsonNode.Parse("[" + new string('[', 100) + new string(']', 100) + "]").Kind);
            Refused(mixed.ToString());
        }

        [Test]
        public void ToJson_RefusesNestingDeeperThan512AndCycles()
        {
            var root = JsonNode.NewArray();
            var node = root;
            for (int i = 1; i < 512; i++)
            {
                var child = JsonNode.NewArray();
                node.Add(child);
                node = child;
            }
            Assert.AreEqual(Nest("[", "", "]", 512), root.ToJson());
            node.Add(JsonNode.NewArray());
            Assert.Throws<InvalidOperationException>(() => root.ToJson());

            var cycle = JsonNode.NewObject();
            cycle.Set("self", cycle);
            Assert.Throws<InvalidOperationException>(() => cycle.ToJson());
        }

        // ------------------------------------------------------------ malformed texts

        [TestCase("", 0)]
        [TestCase("   ", 3)]
        [TestCase("[", 1)]
        [TestCase("{", 1)]
        [TestCase("[1", 2)]
        [TestCase("{\"a\"", 4)]
        [TestCase("{\"a\":", 5)]
        [TestCase("{\"a\":1", 6)]
        [TestCase("[1,]", 3)]
        [TestCase("[1 , ]", 5)]
        [TestCase("[,1]", 1)]
        [TestCase("[1,,2]", 3)]
        [TestCase("{\"a\":1,}", 7)]
        [TestCase("{,}", 1)]
        [TestCase("[1 2]", 3)]
        [TestCase("{\"a\" 1}", 5)]
        [TestCase("{\"a\":1 \"b\":2}", 7)]
        [TestCase("{a:1}", 1)]
        [TestCase("{1:1}", 1)]
        [TestCase("{'a':1}", 1)]
        [TestCase("['a']", 1)]
        [TestCase("[1}", 2)]
        [TestCase("{\"a\":1]", 6)]
        [TestCase("01", 1)]
        [TestCase("-01", 2)]
        [TestCase("[00]", 2)]
        [TestCase("1.", 2)]
        [TestCase("1.e5", 2)]
        [TestCase(".5", 0)]
        [TestCase("+1", 0)]
        [TestCase("1e", 2)]
        [TestCase("1e+", 3)]
        [TestCase("-", 1)]
        [TestCase("- 1", 1)]
        [TestCase("NaN", 0)]
        [TestCase("Infinity", 0)]
        [TestCase("-Infinity", 1)]
        [TestCase("0x1F", 1)]
        [TestCase("tru", 3)]
        [TestCase("trUe", 2)]
        [TestCase("nul", 3)]
        [TestCase("nulll", 4)]
        [TestCase("True", 0)]
        [TestCase("undefined", 0)]
        [TestCase("[1]//c", 3)]
        [TestCase("/*c*/1", 0)]
        [TestCase("[1,/*c*/2]", 3)]
        [TestCase("\"a\u0001\"", 2)]
        [TestCase("\"a\nb\"", 2)]
        [TestCase("\"\t\"", 1)]
        [TestCase("\"\u001f\"", 1)]
        [TestCase("\"\\x\"", 2)]
        [TestCase("\"\\'\"", 2)]
        [TestCase("\"\\U0041\"", 2)]
        [TestCase("\"\\a\"", 2)]
        [TestCase("\"\\0\"", 2)]
        [TestCase("\"\\u12\"", 5)]
        [TestCase("\"\\u12G4\"", 5)]
        [TestCase("\"\\u", 3)]
        [TestCase("\"\\", 2)]
        [TestCase("\"abc", 4)]
        [TestCase("\"", 1)]
        [TestCase("[1] [2]", 4)]
        [TestCase("1 2", 2)]
        [TestCase("{} x", 3)]
        [TestCase("\"a\"\"b\"", 3)]
        [TestCase("\uFEFF1", 0)]
        [TestCase("\u00a01", 0)]
        [TestCase("1\u000b", 1)]
        [TestCase("\f1", 0)]
        [TestCase("{\"a\":1,\"a\":2}", 7)]
        [TestCase("{\"a\":1,\"\\u0061\":2}", 7)]
        [TestCase("[{\"x\":[],\"y\":1,\"x\":null}]", 15)]
        public void Parse_RefusesMalformedTextAtTheRightPosition(string text, int position)
        {
            var e = Refused(text);
            Assert.AreEqual(position, e.Position, e.Message);
            StringAssert.EndsWith(" at character " + position, e.Message);
        }

        [Test]
        public void Parse_ErrorMessagesSayWhatWasExpected()
        {
            var e = Refused("{\"a\":1,\"b\":[1,2] \"c\":3}");
            Assert.AreEqual("Expected ',' or '}' after an object member but found '\"' at character 17", e.Message);
            Assert.AreEqual(17, e.Position);
            StringAssert.StartsWith("Expected ',' or ']' after an array item but the text ended", Refused("[1").Message);
            StringAssert.StartsWith("Expected a JSON value after ',' (no trailing commas)", Refused("[1,]").Message);
            StringAssert.StartsWith("Expected a string key after ','", Refused("{\"a\":1,}").Message);
            StringAssert.StartsWith("Leading zeros are not allowed", Refused("007").Message);
            StringAssert.StartsWith("Duplicate object key \"a\"", Refused("{\"a\":1,\"a\":1}").Message);
            StringAssert.StartsWith("Unescaped control character U+000A", Refused("\"\n\"").Message);
            StringAssert.Contains("U+FEFF", Refused("\uFEFF{}").Message);
        }

        [Test]
        public void Parse_RefusesNull()
        {
            Assert.Throws<ArgumentNullException>(() => JsonNode.Parse(null));
        }

        [Test]
        public void JsonException_IsAFormatException()
        {
            Assert.IsInstanceOf<FormatException>(Refused("x"));
            Assert.AreEqual(-1, new JsonException("missing field").Position);
            Assert.AreEqual(3, new JsonException("bad", 3).Position);
            Assert.AreEqual("bad at character 3", new JsonException("bad", 3).Message);
        }

        // ------------------------------------------------------------ duplicate keys and objects

        [Test]
        public void Parse_RefusesDuplicateKeysButNotKeysDifferingInCase()
        {
            Assert.AreEqual(13, Refused("{\"a\":{\"b\":1},\"a\":{\"b\":1}}").Position);
            var node = JsonNode.Parse("{\"a\":1,\"A\":2,\"a \":3,\"\":4}");
            Assert.AreEqual(4, node.Count);
            Assert.AreEqual(new[] { "a", "A", "a ", "" }, node.Keys.ToArray());
            Assert.AreEqual(JsonKind.Object, JsonNode.Parse("[{\"a\":1},{\"a\":2}]")[1].Kind);
        }

        [Test]
        public void LargeObjects_FindReplaceAndRefuseDuplicateMembers()
        {
            var sb = new StringBuilder("{");
            for (int i = 0; i < 100; i++) sb.Append(i == 0 ? "" : ",").Append("\"k").Append(i).Append("\":").Append(i);
            var text = sb.ToString() + "}";
            var node = JsonNode.Parse(text);
            Assert.AreEqual(100, node.Count);
            for (int i = 0; i < 100; i++) Assert.AreEqual((long)i, node["k" + i].AsLong());
            Assert.IsNull(node["k100"]);
            node.Set("k50", JsonNode.From("x")).Set("new", JsonNode.Null);
            Assert.AreEqual(101, node.Count);
            Assert.AreEqual("k50", node.Keys.ElementAt(50));
            Assert.AreEqual("x", node["k50"].AsString());
            Assert.AreEqual("new", node.Keys.Last());
            for (int dup = 1; dup < 100; dup += 7)
            {
                var withDuplicate = sb.ToString() + ",\"k" + dup + "\":0}";
                Assert.AreEqual(sb.Length + 1, Refused(withDuplicate).Position, "duplicate of k" + dup);
            }
        }

        [Test]
        public void Set_ReplacesAnExistingMemberInPlaceAndAppendsNewOnes()
        {
            var node = JsonNode.NewObject()
                .Set("b", JsonNode.From(1L))
                .Set("a", JsonNode.From(2L))
                .Set("b", JsonNode.From("x"))
                .Set("c", null);
            Assert.AreEqual("{\"b\":\"x\",\"a\":2,\"c\":null}", node.ToJson());
            Assert.AreEqual(3, node.Count);
            Assert.AreSame(JsonNode.Null, node["c"]);
        }

        [Test]
        public void Indexer_ReturnsNullForAnAbsentMemberAndTheNullNodeForJsonNull()
        {
            var node = JsonNode.Parse("{\"present\":null,\"n\":1}");
            Assert.IsNull(node["absent"]);
            Assert.IsNotNull(node["present"]);
            Assert.IsTrue(node["present"].IsNull);
            JsonNode value;
            Assert.IsFalse(node.TryGet("absent", out value));
            Assert.IsNull(value);
            Assert.IsTrue(node.TryGet("n", out value));
            Assert.AreEqual(1L, value.AsLong());
        }

        [Test]
        public void MembersKeysAndItems_EnumerateInDocumentOrder()
        {
            var node = JsonNode.Parse("{\"z\":1,\"1\":2,\"a\":[3,\"x\",null]}");
            Assert.AreEqual(new[] { "z", "1", "a" }, node.Keys.ToArray());
            Assert.AreEqual(new[] { "z", "1", "a" }, node.Members.Select(m => m.Key).ToArray());
            Assert.AreEqual(2L, node.Members.ElementAt(1).Value.AsLong());
            var items = node["a"].Items.ToList();
            Assert.AreEqual(3, items.Count);
            Assert.AreEqual(3L, items[0].AsLong());
            Assert.AreEqual("x", node["a"][1].AsString());
            Assert.IsTrue(node["a"][2].IsNull);
            Assert.AreEqual(3, node["a"].Count);
        }

        // ------------------------------------------------------------ construction and wrong kinds

        [Test]
        public void From_MakesNodesOfEachKind()
        {
            Assert.AreSame(JsonNode.Null, JsonNode.From((string)null));
            Assert.IsTrue(JsonNode.Null.IsNull);
            Assert.AreEqual(JsonKind.Null, JsonNode.Null.Kind);
            Assert.AreEqual("null", JsonNode.Null.ToJson());
            Assert.AreEqual("true", JsonNode.From(true).ToJson());
            Assert.AreEqual("false", JsonNode.From(false).ToJson());
            Assert.AreEqual(JsonKind.Boolean, JsonNode.From(true).Kind);
            Assert.AreEqual("\"\"", JsonNode.From("").ToJson());
            Assert.AreEqual(JsonKind.String, JsonNode.From("").Kind);
            Assert.AreEqual("42", JsonNode.From(42).ToJson());
            Assert.AreEqual(JsonKind.Number, JsonNode.From(42).Kind);
            Assert.AreEqual("[]", JsonNode.NewArray().ToJson());
            Assert.AreEqual("{}", JsonNode.NewObject().ToJson());
            Assert.AreEqual("[null,1]", JsonNode.NewArray().Add(null).Add(JsonNode.From(1L)).ToJson());
        }

        [Test]
        public void BuildingMethods_RefuseTheWrongKind()
        {
            Assert.Throws<InvalidOperationException>(() => JsonNode.NewArray().Set("a", JsonNode.Null));
            Assert.Throws<InvalidOperationException>(() => JsonNode.NewObject().Add(JsonNode.Null));
            Assert.Throws<InvalidOperationException>(() => JsonNode.Null.Add(JsonNode.Null));
            Assert.Throws<InvalidOperationException>(() => JsonNode.From("s").Set("a", JsonNode.Null));
            Assert.Throws<ArgumentNullException>(() => JsonNode.NewObject().Set(null, JsonNode.Null));
        }

        [Test]
        public void ReadingMethods_ThrowJsonExceptionForTheWrongKind()
        {
            var number = JsonNode.From(1L);
            var str = JsonNode.From("1");
            var array = JsonNode.NewArray();
            var obj = JsonNode.NewObject();
            Assert.AreEqual(-1, Assert.Throws<JsonException>(() => number.AsString()).Position);
            Assert.Throws<JsonException>(() => str.AsLong());
            Assert.Throws<JsonException>(() => str.AsDouble());
            Assert.Throws<JsonException>(() => str.AsBool());
            Assert.Throws<JsonException>(() => { var r = str.RawNumber; });
            Assert.Throws<JsonException>(() => JsonNode.Null.AsString());
            Assert.Throws<JsonException>(() => JsonNode.Null.AsBool());
            Assert.Throws<JsonException>(() => { var c = number.Count; });
            Assert.Throws<JsonException>(() => { var x = obj[0]; });
            Assert.Throws<JsonException>(() => { var x = array["a"]; });
            Assert.Throws<JsonException>(() => { JsonNode v; array.TryGet("a", out v); });
            Assert.Throws<JsonException>(() => { var k = array.Keys; });
            Assert.Throws<JsonException>(() => { var m = array.Members; });
            Assert.Throws<JsonException>(() => { var i = obj.Items; });
            Assert.Throws<ArgumentOutOfRangeException>(() => { var x = array[0]; });
            Assert.Throws<ArgumentOutOfRangeException>(() => { var x = JsonNode.Parse("[1]")[-1]; });
            StringAssert.Contains("a string", Assert.Throws<JsonException>(() => number.AsString()).Message);
        }
    }
}

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using GameBackend.Json;
using NUnit.Framework;

namespace GameBackend.Tests
{
    /// <summary>
    /// Property-based cases from sdk-csharp/Tools~/json-cases.mjs: the file named by GB_JSON_CASES,
    /// or, when that is unset, a file this fixture makes by running the script with node from PATH.
    /// </summary>
    [TestFixture]
    public class JsonPropertyCases
    {
        private JsonNode cases;

        [TestFixtureSetUp]
        public void LoadCases()
        {
            string path = Environment.GetEnvironmentVariable("GB_JSON_CASES");
            if (string.IsNullOrEmpty(path))
            {
                string script = FindScript();
                if (script == null)
                    Assert.Fail("GB_JSON_CASES is unset and sdk-csharp/Tools~/json-cases.mjs was not found above this test's source file, "
                        + "$PWD, " + Environment.CurrentDirectory + " or " + AppDomain.CurrentDomain.BaseDirectory);
                string tempFile = Path.Combine(Path.GetTempPath(), "gb-json-cases-" + Guid.NewGuid().ToString("N") + ".json");
                try
                {
                    RunNode(script, tempFile);
                    cases = JsonNode.Parse(File.ReadAllText(tempFile, Encoding.UTF8));
                }
                finally
                {
                    if (File.Exists(tempFile)) File.Delete(tempFile);
                }
                return;
            }
            cases = JsonNode.Parse(File.ReadAllText(path, Encoding.UTF8));
        }

        private static string ThisSourceFile([CallerFilePath] string path = "")
        {
            return path;
        }

        /// <summary>Looks above this source file (as compiled), $PWD, the current directory and the test assembly's.</summary>
        private static string FindScript()
        {
            var starts = new List<string>();
            string source = ThisSourceFile();
            if (!string.IsNullOrEmpty(source) && Path.IsPathRooted(source)) starts.Add(Path.GetDirectoryName(source));
            string pwd = Environment.GetEnvironmentVariable("PWD");
            if (!string.IsNullOrEmpty(pwd)) starts.Add(pwd);
            starts.Add(Environment.CurrentDirectory);
            starts.Add(AppDomain.CurrentDomain.BaseDirectory);
            foreach (var start in starts)
            {
                if (!Directory.Exists(start)) continue;
                var dir = new DirectoryInfo(start);
                while (dir != null)
                {
                    foreach (var relative in new[] { Path.Combine("sdk-csharp", Path.Combine("Tools~", "json-cases.mjs")), Path.Combine("Tools~", "json-cases.mjs") })
                    {
                        var candidate = Path.Combine(dir.FullName, relative);
                        if (File.Exists(candidate)) return candidate;
                    }
                    dir = dir.Parent;
                }
            }
            return null;
        }

        private static void RunNode(string script, string output)
        {
            var info = new ProcessStartInfo("node", "\"" + script + "\" \"" + output + "\"")
            {
                UseShellExecute = false,
                RedirectStandardError = true,
                RedirectStandardOutput = true,
                CreateNoWindow = true,
            };
            Process started;
            try
            {
                started = Process.Start(info);
            }
            catch (Exception e)
            {
                Assert.Fail("GB_JSON_CASES is unset and node could not be started to run " + script + ": " + e.Message);
                return;
            }
            using (var process = started)
            {
                var stderr = process.StandardError.ReadToEndAsync();
                var stdout = process.StandardOutput.ReadToEndAsync();
                if (!process.WaitForExit(300000))
                {
                    process.Kill();
                    Assert.Fail("node " + script + " did not finish within 5 minutes");
                }
                process.WaitForExit();
                if (process.ExitCode != 0)
                    Assert.Fail("node " + script + " exited with " + process.ExitCode + ": " + stderr.Result + stdout.Result);
            }
        }

        private static string Show(string s)
        {
            var sb = new StringBuilder();
            foreach (char c in s.Length > 300 ? s.Substring(0, 300) + "…" : s)
            {
                if (c < 0x20 || (c >= 0x7F && c < 0xA0) || c == '\u2028' || c == '\u2029' || (c >= 0xD800 && c <= 0xDFFF))
                    sb.Append("\\x{").Append(((int)c).ToString("X4")).Append('}');
                else
                    sb.Append(c);
            }
            return sb.ToString();
        }

        private static void Report(List<string> failures, int total, string what)
        {
            if (failures.Count == 0) return;
            var sb = new StringBuilder();
            sb.Append(failures.Count).Append(" of ").Append(total).Append(' ').Append(what).Append(" failed; the first ones:\n");
            for (int i = 0; i < failures.Count && i < 5; i++) sb.Append(failures[i]).Append('\n');
            Assert.Fail(sb.ToString());
        }

        [Test]
        public void TheCaseFileHasEnoughCasesOfEachSort()
        {
            Assert.GreaterOrEqual(cases["valid"].Count, 1000);
            Assert.GreaterOrEqual(cases["invalid"].Count, 500);
            Assert.GreaterOrEqual(cases["doubles"].Count, 500);
        }

        [Test]
        public void ValidTexts_ParseAndWriteExactlyTheCanonicalCompactForm()
        {
            var failures = new List<string>();
            int total = 0;
            foreach (var c in cases["valid"].Items)
            {
                total++;
                string text = c["text"].AsString();
                string canonical = c["canonical"].AsString();
                try
                {
                    string json = JsonNode.Parse(text).ToJson();
                    if (json != canonical)
                        failures.Add("text " + Show(text) + "\n  wrote    " + Show(json) + "\n  expected " + Show(canonical));
                }
                catch (JsonException e)
                {
                    failures.Add("text " + Show(text) + "\n  refused: " + e.Message);
                }
            }
            Report(failures, total, "valid texts");
        }

        [Test]
        public void CanonicalTexts_RoundTripThroughParseAndToJson()
        {
            var failures = new List<string>();
            int total = 0;
            foreach (var c in cases["valid"].Items)
            {
                total++;
                string canonical = c["canonical"].AsString();
                try
                {
                    string once = JsonNode.Parse(canonical).ToJson();
                    string twice = JsonNode.Parse(once).ToJson();
                    if (once != canonical || twice != once)
                        failures.Add("canonical " + Show(canonical) + "\n  once  " + Show(once) + "\n  twice " + Show(twice));
                }
                catch (JsonException e)
                {
                    failures.Add("canonical " + Show(canonical) + "\n  refused: " + e.Message);
                }
            }
            Report(failures, total, "canonical texts");
        }

        [Test]
        public void InvalidTexts_AreRefusedWithAJsonExceptionInsideTheText()
        {
            var failures = new List<string>();
            int total = 0;
            foreach (var c in cases["invalid"].Items)
            {
                total++;
                string text = c.AsString();
                try
                {
                    var node = JsonNode.Parse(text);
                    failures.Add("accepted " + Show(text) + "\n  as " + Show(node.ToJson()));
                }
                catch (JsonException e)
                {
                    if (e.Position < 0 || e.Position > text.Length)
                        failures.Add("text " + Show(text) + "\n  position " + e.Position + " outside 0.." + text.Length);
                }
            }
            Report(failures, total, "invalid texts");
        }

        private static double FromBits(string hex)
        {
            return BitConverter.Int64BitsToDouble(long.Parse(hex, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture));
        }

        [Test]
        public void Doubles_AreReadAsTheNearestDouble()
        {
            var failures = new List<string>();
            int total = 0;
            foreach (var c in cases["doubles"].Items)
            {
                total++;
                string text = c["text"].AsString();
                double expected = FromBits(c["bits"].AsString());
                try
                {
                    double d = JsonNode.Parse(text).AsDouble();
                    if (BitConverter.DoubleToInt64Bits(d) != BitConverter.DoubleToInt64Bits(expected))
                        failures.Add(text + " read as " + d.ToString("R", CultureInfo.InvariantCulture) + ", expected " + expected.ToString("R", CultureInfo.InvariantCulture));
                }
                catch (JsonException e)
                {
                    failures.Add(text + " refused: " + e.Message);
                }
            }
            Report(failures, total, "doubles");
        }

        [Test]
        public void Doubles_AreWrittenAsJavaScriptWritesThem()
        {
            var failures = new List<string>();
            int total = 0;
            foreach (var c in cases["doubles"].Items)
            {
                total++;
                string expected = c["text"].AsString();
                string json = JsonNode.From(FromBits(c["bits"].AsString())).ToJson();
                if (json != expected) failures.Add("JavaScript " + expected + ", C# " + json);
            }
            Report(failures, total, "doubles");
        }
    }
}

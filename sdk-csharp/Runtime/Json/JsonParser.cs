using System;
using System.Text;

namespace GameBackend.Json
{
    /// <summary>
    /// The strict RFC 8259 recursive-descent parser behind <see cref="JsonNode.Parse"/>.
    /// Positions in errors are zero-based indexes into the text.
    /// </summary>
    internal sealed class JsonParser
    {
        private readonly string s;
        private int pos;
        private int depth;
        private StringBuilder buffer;

        internal JsonParser(string text)
        {
            s = text;
        }

        internal JsonNode ParseDocument()
        {
            SkipWhitespace();
            JsonNode value = ParseValue();
            SkipWhitespace();
            if (pos < s.Length)
                throw new JsonException("Unexpected " + Describe(pos) + " after the JSON value (only whitespace may follow it)", pos);
            return value;
        }

        private void SkipWhitespace()
        {
            while (pos < s.Length)
            {
                char c = s[pos];
                if (c == ' ' || c == '\n' || c == '\r' || c == '\t') pos++;
                else break;
            }
        }

        /// <summary>"'x'" or "U+0001" for the character at i, or "the end of the text".</summary>
        private string Describe(int i)
        {
            if (i >= s.Length) return "end of the text";
            char c = s[i];
            if (c < 0x20 || c == 0x7F || (c >= 0xD800 && c <= 0xDFFF) || c == '\u2028' || c == '\u2029' || c == '\uFEFF')
                return "character U+" + ((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture);
            return "'" + c + "'";
        }

        private JsonException Expected(string what, string after)
        {
            string found = pos >= s.Length ? "the text ended" : "found " + Describe(pos);
            return new JsonException("Expected " + what + (after == null ? "" : " " + after) + " but " + found, pos);
        }

        private JsonNode ParseValue()
        {
            if (pos >= s.Length) throw Expected("a JSON value", null);
            char c = s[pos];
            switch (c)
            {
                case '{': return ParseObject();
                case '[': return ParseArray();
                case '"': return JsonNode.StringTrusted(ParseString());
                case 't': ExpectLiteral("true"); return JsonNode.True;
                case 'f': ExpectLiteral("false"); return JsonNode.False;
                case 'n': ExpectLiteral("null"); return JsonNode.Null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9'))
                    {
                        int start = pos;
                        pos = ScanNumber(s, pos);
                        return JsonNode.NumberTrusted(s.Substring(start, pos - start));
                    }
                    throw Expected("a JSON value (object, array, string, number, true, false or null)", null);
            }
        }

        private void ExpectLiteral(string literal)
        {
            for (int i = 0; i < literal.Length; i++)
            {
                if (pos + i >= s.Length || s[pos + i] != literal[i])
                {
                    pos += i;
                    throw Expected("'" + literal + "'", null);
                }
            }
            pos += literal.Length;
        }

        private void Enter()
        {
            if (++depth > JsonNode.MaxDepth)
                throw new JsonException("Arrays and objects nest deeper than " + JsonNode.MaxDepth, pos);
        }

        private JsonNode ParseArray()
        {
            Enter();
            pos++;                                   // '['
            JsonNode array = JsonNode.NewArray();
            SkipWhitespace();
            if (pos < s.Length && s[pos] == ']')
            {
                pos++;
                depth--;
                return array;
            }
            while (true)
            {
                if (pos < s.Length && s[pos] == ']') throw Expected("a JSON value", "after ',' (no trailing commas)");
                array.Add(ParseValue());
                SkipWhitespace();
                if (pos >= s.Length) throw Expected("',' or ']'", "after an array item");
                char c = s[pos];
                if (c == ',')
                {
                    pos++;
                    SkipWhitespace();
                    continue;
                }
                if (c == ']')
                {
                    pos++;
                    depth--;
                    return array;
                }
                throw Expected("',' or ']'", "after an array item");
            }
        }

        private JsonNode ParseObject()
        {
            Enter();
            pos++;                                   // '{'
            JsonNode obj = JsonNode.NewObject();
            SkipWhitespace();
            if (pos < s.Length && s[pos] == '}')
            {
                pos++;
                depth--;
                return obj;
            }
            bool first = true;
            while (true)
            {
                if (pos >= s.Length || s[pos] != '"')
                {
                    if (first) throw Expected("a string key or '}'", "in an object");
                    throw Expected("a string key", "after ',' in an object (no trailing commas)");
                }
                first = false;
                int keyStart = pos;
                string key = ParseString();
                SkipWhitespace();
                if (pos >= s.Length || s[pos] != ':') throw Expected("':'", "after an object key");
                pos++;
                SkipWhitespace();
                JsonNode value = ParseValue();
                if (!obj.TryAddMember(key, value))
                    throw new JsonException("Duplicate object key \"" + key + "\"", keyStart);
                SkipWhitespace();
                if (pos >= s.Length) throw Expected("',' or '}'", "after an object member");
                char c = s[pos];
                if (c == ',')
                {
                    pos++;
                    SkipWhitespace();
                    continue;
                }
                if (c == '}')
                {
                    pos++;
                    depth--;
                    return obj;
                }
                throw Expected("',' or '}'", "after an object member");
            }
        }

        /// <summary>Reads a string literal starting at the opening quote; pos ends after the closing quote.</summary>
        private string ParseString()
        {
            int start = ++pos;                       // after '"'
            int n = s.Length;
            // Fast path: no escapes, no characters that need a check.
            int i = start;
            while (i < n)
            {
                char c = s[i];
                if (c == '"')
                {
                    pos = i + 1;
                    return s.Substring(start, i - start);
                }
                if (c == '\\' || c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) break;
                i++;
            }
            StringBuilder sb = buffer ?? (buffer = new StringBuilder());
            sb.Length = 0;
            sb.Append(s, start, i - start);
            while (true)
            {
                if (i >= n)
                {
                    pos = n;
                    throw new JsonException("Unterminated string (expected '\"')", n);
                }
                char c = s[i];
                if (c == '"')
                {
                    pos = i + 1;
                    return sb.ToString();
                }
                if (c == '\\')
                {
                    i = ParseEscape(i, sb);
                    continue;
                }
                if (c < 0x20)
                    throw new JsonException("Unescaped control character U+" + ((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture) + " in a string (write it as an escape)", i);
                if (c >= 0xD800 && c <= 0xDFFF)
                {
                    if (c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF)
                    {
                        sb.Append(c).Append(s[i + 1]);
                        i += 2;
                        continue;
                    }
                    throw new JsonException("Lone surrogate U+" + ((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture) + " in a string (the text is not valid UTF-16)", i);
                }
                sb.Append(c);
                i++;
            }
        }

        /// <summary>Decodes the escape at s[i] == '\\' into sb; returns the index after it.</summary>
        private int ParseEscape(int i, StringBuilder sb)
        {
            int n = s.Length;
            if (i + 1 >= n) throw new JsonException("Unterminated string (expected an escape character after '\\')", n);
            char e = s[i + 1];
            switch (e)
            {
                case '"': sb.Append('"'); return i + 2;
                case '\\': sb.Append('\\'); return i + 2;
                case '/': sb.Append('/'); return i + 2;
                case 'b': sb.Append('\b'); return i + 2;
                case 'f': sb.Append('\f'); return i + 2;
                case 'n': sb.Append('\n'); return i + 2;
                case 'r': sb.Append('\r'); return i + 2;
                case 't': sb.Append('\t'); return i + 2;
                case 'u':
                    int cp = ReadHex4(i + 2);
                    if (cp >= 0xD800 && cp <= 0xDBFF)
                    {
                        if (i + 7 < n && s[i + 6] == '\\' && s[i + 7] == 'u')
                        {
                            int low = ReadHex4(i + 8);
                            if (low >= 0xDC00 && low <= 0xDFFF)
                            {
                                sb.Append((char)cp).Append((char)low);
                                return i + 12;
                            }
                        }
                        throw new JsonException("Lone high surrogate \\u" + s.Substring(i + 2, 4) + " (it must be followed by a \\u escape of a low surrogate)", i);
                    }
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                        throw new JsonException("Lone low surrogate \\u" + s.Substring(i + 2, 4) + " (it must follow a \\u escape of a high surrogate)", i);
                    sb.Append((char)cp);
                    return i + 6;
                default:
                    throw new JsonException("Invalid escape " + (e < 0x20 || e > 0x7E ? "'\\' followed by " + Describe(i + 1) : "'\\" + e + "'") + " in a string (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", i + 1);
            }
        }

        private int ReadHex4(int at)
        {
            int v = 0;
            for (int k = 0; k < 4; k++)
            {
                int j = at + k;
                if (j >= s.Length) throw new JsonException("Unterminated string (expected 4 hex digits after '\\u')", s.Length);
                char c = s[j];
                int d;
                if (c >= '0' && c <= '9') d = c - '0';
                else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
                else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
                else throw new JsonException("Expected a hex digit in a \\u escape but found " + Describe(j), j);
                v = (v << 4) | d;
            }
            return v;
        }

        /// <summary>
        /// Checks the JSON number grammar from i: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
        /// Returns the index after the number; throws JsonException at the first wrong character.
        /// A digit right after a leading 0 is refused (no leading zeros).
        /// </summary>
        internal static int ScanNumber(string s, int i)
        {
            int n = s.Length;
            if (i < n && s[i] == '-') i++;
            if (i >= n || s[i] < '0' || s[i] > '9')
                throw new JsonException("Expected a digit" + (i > 0 && s[i - 1] == '-' ? " after '-'" : " to start a number") + " but " + FoundAt(s, i), i);
            if (s[i] == '0')
            {
                i++;
                if (i < n && s[i] >= '0' && s[i] <= '9')
                    throw new JsonException("Leading zeros are not allowed in a number", i);
            }
            else
            {
                while (i < n && s[i] >= '0' && s[i] <= '9') i++;
            }
            if (i < n && s[i] == '.')
            {
                i++;
                if (i >= n || s[i] < '0' || s[i] > '9')
                    throw new JsonException("Expected a digit after the decimal point but " + FoundAt(s, i), i);
                while (i < n && s[i] >= '0' && s[i] <= '9') i++;
            }
            if (i < n && (s[i] == 'e' || s[i] == 'E'))
            {
                i++;
                if (i < n && (s[i] == '+' || s[i] == '-')) i++;
                if (i >= n || s[i] < '0' || s[i] > '9')
                    throw new JsonException("Expected a digit in the exponent but " + FoundAt(s, i), i);
                while (i < n && s[i] >= '0' && s[i] <= '9') i++;
            }
            return i;
        }

        private static string FoundAt(string s, int i)
        {
            if (i >= s.Length) return "the text ended";
            char c = s[i];
            if (c < 0x20 || c > 0x7E) return "found character U+" + ((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture);
            return "found '" + c + "'";
        }
    }
}

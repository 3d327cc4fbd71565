using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace GameBackend.Json
{
    /// <summary>The kind of a JSON value.</summary>
    public enum JsonKind { Null, Boolean, Number, String, Array, Object }

    /// <summary>
    /// A JSON value (RFC 8259): a small DOM with a strict parser (<see cref="Parse"/>) and a compact
    /// writer (<see cref="ToJson"/>). Numbers keep their text (<see cref="RawNumber"/>), so a value
    /// read and written again is written exactly as it was read.
    /// Scalars are immutable; objects and arrays are built with <see cref="Set"/> and <see cref="Add"/>.
    /// </summary>
    public sealed class JsonNode
    {
        /// <summary>The deepest nesting of arrays and objects that Parse and ToJson accept.</summary>
        public const int MaxDepth = 512;

        /// <summary>A shared null node.</summary>
        public static readonly JsonNode Null = new JsonNode(JsonKind.Null);
        internal static readonly JsonNode True = new JsonNode(JsonKind.Boolean) { boolValue = true };
        internal static readonly JsonNode False = new JsonNode(JsonKind.Boolean) { boolValue = false };

        private readonly JsonKind kind;
        private bool boolValue;
        private string text;                                          // String: the value; Number: the lexeme
        private List<JsonNode> items;                                 // Array
        private List<KeyValuePair<string, JsonNode>> members;         // Object, in insertion order
        private Dictionary<string, int> index;                        // Object: name -> position in members

        private JsonNode(JsonKind kind)
        {
            this.kind = kind;
        }

        /// <summary>The kind of this value.</summary>
        public JsonKind Kind { get { return kind; } }

        // ------------------------------------------------------------------ parsing

        /// <summary>
        /// Parses a whole JSON text: one value, optionally surrounded by whitespace (space, tab, CR, LF).
        /// Strict RFC 8259: no comments, trailing commas, single quotes, leading zeros, NaN/Infinity,
        /// unescaped control characters, unknown escapes, lone surrogates or duplicate object keys.
        /// Arrays and objects may nest at most <see cref="MaxDepth"/> (512) deep.
        /// </summary>
        /// <exception cref="ArgumentNullException">text is null.</exception>
        /// <exception cref="JsonException">the text is not valid JSON; Position says where.</exception>
        public static JsonNode Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            return new JsonParser(text).ParseDocument();
        }

        // ------------------------------------------------------------------ construction

        /// <summary>A string node; null gives the <see cref="Null"/> node.</summary>
        public static JsonNode From(string s)
        {
            if (s == null) return Null;
            return new JsonNode(JsonKind.String) { text = s };
        }

        /// <summary>A boolean node.</summary>
        public static JsonNode From(bool b)
        {
            return b ? True : False;
        }

        /// <summary>An integer number node.</summary>
        public static JsonNode From(long n)
        {
            return new JsonNode(JsonKind.Number) { text = n.ToString(CultureInfo.InvariantCulture) };
        }

        /// <summary>
        /// A number node written the way JavaScript writes the number (JSON.stringify): the shortest
        /// digits that read back as the same double, integer values without ".0" (3.0 gives "3"),
        /// an exponent from 1e21 up and below 1e-6 ("1e+21", "1.5e-7"). Negative zero is written "-0".
        /// </summary>
        /// <exception cref="ArgumentException">d is NaN or infinite (JSON has no such numbers).</exception>
        public static JsonNode From(double d)
        {
            if (double.IsNaN(d) || double.IsInfinity(d))
                throw new ArgumentException("JSON has no NaN or Infinity", "d");
            return new JsonNode(JsonKind.Number) { text = JsonNumbers.FormatDouble(d) };
        }

        /// <summary>A number node with the given text, which must follow the JSON number grammar.</summary>
        /// <exception cref="ArgumentNullException">raw is null.</exception>
        /// <exception cref="JsonException">raw is not a JSON number (Position says where).</exception>
        public static JsonNode NumberFromRaw(string raw)
        {
            if (raw == null) throw new ArgumentNullException("raw");
            int end = JsonParser.ScanNumber(raw, 0);
            if (end != raw.Length)
                throw new JsonException("Expected the end of the number", end);
            return new JsonNode(JsonKind.Number) { text = raw };
        }

        internal static JsonNode NumberTrusted(string raw)
        {
            return new JsonNode(JsonKind.Number) { text = raw };
        }

        internal static JsonNode StringTrusted(string s)
        {
            return new JsonNode(JsonKind.String) { text = s };
        }

        /// <summary>A new empty object.</summary>
        public static JsonNode NewObject()
        {
            return new JsonNode(JsonKind.Object)
            {
                members = new List<KeyValuePair<string, JsonNode>>(),
                index = new Dictionary<string, int>(StringComparer.Ordinal),
            };
        }

        /// <summary>A new empty array.</summary>
        public static JsonNode NewArray()
        {
            return new JsonNode(JsonKind.Array) { items = new List<JsonNode>() };
        }

        /// <summary>
        /// Sets an object member (a new name goes last; an existing one is replaced in place).
        /// A null value means the <see cref="Null"/> node. Returns this object.
        /// </summary>
        /// <exception cref="ArgumentNullException">name is null.</exception>
        /// <exception cref="InvalidOperationException">this is not an object.</exception>
        public JsonNode Set(string name, JsonNode value)
        {
            if (name == null) throw new ArgumentNullException("name");
            if (kind != JsonKind.Object) throw new InvalidOperationException("Set needs an object, this is " + KindName(kind));
            if (value == null) value = Null;
            int at;
            if (index.TryGetValue(name, out at))
            {
                members[at] = new KeyValuePair<string, JsonNode>(name, value);
            }
            else
            {
                index.Add(name, members.Count);
                members.Add(new KeyValuePair<string, JsonNode>(name, value));
            }
            return this;
        }

        /// <summary>Adds a member while parsing; false when the name is already there.</summary>
        internal bool TryAddMember(string name, JsonNode value)
        {
            if (index.ContainsKey(name)) return false;
            index.Add(name, members.Count);
            members.Add(new KeyValuePair<string, JsonNode>(name, value));
            return true;
        }

        /// <summary>Appends an array item (null means the <see cref="Null"/> node). Returns this array.</summary>
        /// <exception cref="InvalidOperationException">this is not an array.</exception>
        public JsonNode Add(JsonNode value)
        {
            if (kind != JsonKind.Array) throw new InvalidOperationException("Add needs an array, this is " + KindName(kind));
            items.Add(value ?? Null);
            return this;
        }

        // ------------------------------------------------------------------ reading

        /// <summary>The number of array items or object members.</summary>
        /// <exception cref="JsonException">this is neither an array nor an object.</exception>
        public int Count
        {
            get
            {
                if (kind == JsonKind.Array) return items.Count;
                if (kind == JsonKind.Object) return members.Count;
                throw WrongKind("an array or an object");
            }
        }

        /// <summary>An array item.</summary>
        /// <exception cref="JsonException">this is not an array.</exception>
        /// <exception cref="ArgumentOutOfRangeException">no item at that index.</exception>
        public JsonNode this[int index]
        {
            get
            {
                if (kind != JsonKind.Array) throw WrongKind("an array");
                if (index < 0 || index >= items.Count) throw new ArgumentOutOfRangeException("index");
                return items[index];
            }
        }

        /// <summary>An object member, or null (not the Null node) when the object has no such member.</summary>
        /// <exception cref="JsonException">this is not an object.</exception>
        public JsonNode this[string name]
        {
            get
            {
                JsonNode value;
                TryGet(name, out value);
                return value;
            }
        }

        /// <summary>Looks up an object member; false (value null) when absent.</summary>
        /// <exception cref="JsonException">this is not an object.</exception>
        public bool TryGet(string name, out JsonNode value)
        {
            if (kind != JsonKind.Object) throw WrongKind("an object");
            if (name == null) throw new ArgumentNullException("name");
            int at;
            if (index.TryGetValue(name, out at))
            {
                value = members[at].Value;
                return true;
            }
            value = null;
            return false;
        }

        /// <summary>An object's member names, in document (insertion) order.</summary>
        /// <exception cref="JsonException">this is not an object.</exception>
        public IEnumerable<string> Keys
        {
            get
            {
                if (kind != JsonKind.Object) throw WrongKind("an object");
                return KeysOf(members);
            }
        }

        private static IEnumerable<string> KeysOf(List<KeyValuePair<string, JsonNode>> list)
        {
            for (int i = 0; i < list.Count; i++) yield return list[i].Key;
        }

        /// <summary>An object's members, in document (insertion) order.</summary>
        /// <exception cref="JsonException">this is not an object.</exception>
        public IEnumerable<KeyValuePair<string, JsonNode>> Members
        {
            get
            {
                if (kind != JsonKind.Object) throw WrongKind("an object");
                return members.AsReadOnly();
            }
        }

        /// <summary>An array's items.</summary>
        /// <exception cref="JsonException">this is not an array.</exception>
        public IEnumerable<JsonNode> Items
        {
            get
            {
                if (kind != JsonKind.Array) throw WrongKind("an array");
                return items.AsReadOnly();
            }
        }

        /// <summary>True for JSON null.</summary>
        public bool IsNull { get { return kind == JsonKind.Null; } }

        /// <summary>The string's value.</summary>
        /// <exception cref="JsonException">this is not a string.</exception>
        public string AsString()
        {
            if (kind != JsonKind.String) throw WrongKind("a string");
            return text;
        }

        /// <summary>The boolean's value.</summary>
        /// <exception cref="JsonException">this is not true or false.</exception>
        public bool AsBool()
        {
            if (kind != JsonKind.Boolean) throw WrongKind("a boolean");
            return boolValue;
        }

        /// <summary>
        /// The number as the nearest double (InvariantCulture; "-0" gives negative zero).
        /// </summary>
        /// <exception cref="JsonException">this is not a number, or its magnitude is beyond double's range.</exception>
        public double AsDouble()
        {
            if (kind != JsonKind.Number) throw WrongKind("a number");
            return JsonNumbers.ParseDouble(text);
        }

        /// <summary>
        /// The number as a long: only integer lexemes (no fraction, no exponent) from -2^63 to 2^63-1.
        /// </summary>
        /// <exception cref="JsonException">this is not a number, not an integer lexeme, or out of range.</exception>
        public long AsLong()
        {
            if (kind != JsonKind.Number) throw WrongKind("a number");
            for (int i = 0; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '.' || c == 'e' || c == 'E')
                    throw new JsonException("The number " + text + " is not an integer (it has a fraction or an exponent)");
            }
            long n;
            if (!long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out n))
                throw new JsonException("The number " + text + " is out of the range of a 64-bit integer");
            return n;
        }

        /// <summary>The number's text, as read by Parse or as written by From/NumberFromRaw.</summary>
        /// <exception cref="JsonException">this is not a number.</exception>
        public string RawNumber
        {
            get
            {
                if (kind != JsonKind.Number) throw WrongKind("a number");
                return text;
            }
        }

        // ------------------------------------------------------------------ writing

        /// <summary>
        /// The compact JSON text of this value: no whitespace, object members in insertion order,
        /// numbers as <see cref="RawNumber"/>. Strings escape '"', '\', U+0000-U+001F (\b \f \n \r \t,
        /// else \u00xx) and U+2028/U+2029 (\u2028, \u2029); every other character is written as is.
        /// A lone surrogate (a string that is not valid UTF-16) is written as U+FFFD, as a UTF-8
        /// encoder would, so the text is always valid Unicode that Parse accepts.
        /// </summary>
        /// <exception cref="InvalidOperationException">nesting deeper than 512 (for example a cycle).</exception>
        public string ToJson()
        {
            var sb = new StringBuilder();
            WriteTo(sb, 0);
            return sb.ToString();
        }

        /// <summary>The same as <see cref="ToJson"/>.</summary>
        public override string ToString()
        {
            return ToJson();
        }

        internal void WriteTo(StringBuilder sb, int depth)
        {
            switch (kind)
            {
                case JsonKind.Null: sb.Append("null"); break;
                case JsonKind.Boolean: sb.Append(boolValue ? "true" : "false"); break;
                case JsonKind.Number: sb.Append(text); break;
                case JsonKind.String: WriteString(sb, text); break;
                case JsonKind.Array:
                    if (depth >= MaxDepth) throw new InvalidOperationException("JSON nesting deeper than " + MaxDepth + " (is there a cycle?)");
                    sb.Append('[');
                    for (int i = 0; i < items.Count; i++)
                    {
                        if (i > 0) sb.Append(',');
                        items[i].WriteTo(sb, depth + 1);
                    }
                    sb.Append(']');
                    break;
                case JsonKind.Object:
                    if (depth >= MaxDepth) throw new InvalidOperationException("JSON nesting deeper than " + MaxDepth + " (is there a cycle?)");
                    sb.Append('{');
                    for (int i = 0; i < members.Count; i++)
                    {
                        if (i > 0) sb.Append(',');
                        WriteString(sb, members[i].Key);
                        sb.Append(':');
                        members[i].Value.WriteTo(sb, depth + 1);
                    }
                    sb.Append('}');
                    break;
            }
        }

        private const string Hex = "0123456789abcdef";

        /// <summary>Writes s as a JSON string literal (quotes included).</summary>
        internal static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            int start = 0;                       // first character not yet copied
            int n = s.Length;
            for (int i = 0; i < n; i++)
            {
                char c = s[i];
                if (c >= 0x20 && c != '"' && c != '\\')
                {
                    if (c < 0x2028) continue;                                   // the common case
                    if (c > 0x2029 && (c < 0xD800 || c > 0xDFFF)) continue;
                    if (c <= 0xDBFF && c >= 0xD800 && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) { i++; continue; }
                }
                sb.Append(s, start, i - start);
                start = i + 1;
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\u2028': sb.Append("\\u2028"); break;
                    case '\u2029': sb.Append("\\u2029"); break;
                    default:
                        if (c < 0x20)
                        {
                            sb.Append("\\u00").Append(Hex[c >> 4]).Append(Hex[c & 0xF]);
                        }
                        else
                        {
                            sb.Append('\uFFFD');          // a lone surrogate
                        }
                        break;
                }
            }
            sb.Append(s, start, n - start);
            sb.Append('"');
        }

        // ------------------------------------------------------------------ helpers

        private JsonException WrongKind(string expected)
        {
            return new JsonException("Expected " + expected + " but the JSON value is " + KindName(kind));
        }

        internal static string KindName(JsonKind k)
        {
            switch (k)
            {
                case JsonKind.Null: return "null";
                case JsonKind.Boolean: return "a boolean";
                case JsonKind.Number: return "a number";
                case JsonKind.String: return "a string";
                case JsonKind.Array: return "an array";
                default: return "an object";
            }
        }
    }
}

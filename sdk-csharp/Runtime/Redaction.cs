using System;
using System.Collections.Generic;
using System.Text;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>
    /// What the log hook (GameClientOptions.Log) may see: secrets in headers and JSON bodies replaced by
    /// "[redacted]" (passwords, tokens, refresh tokens, device secrets, e-mailed codes, store receipts,
    /// the API key), long bodies cut.
    /// </summary>
    internal static class Redaction
    {
        public const string Mark = "[redacted]";
        private const int MaxBody = 2000;

        private static readonly HashSet<string> SecretHeaders = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
        {
            "Authorization", "X-API-Key", "Cookie", "Set-Cookie",
        };

        /// <summary>A JSON member with one of these names (case and '_'/'-' ignored), or containing password, token or secret, is blanked.</summary>
        private static readonly HashSet<string> SecretNames = new HashSet<string>(StringComparer.Ordinal)
        {
            "jws", "signedtransaction", "receipt", "purchasetoken", "signature", "apikey", "authorization", "credential",
        };

        public static string Headers(Dictionary<string, string> headers)
        {
            StringBuilder line = new StringBuilder(" {");
            bool first = true;
            foreach (KeyValuePair<string, string> header in headers)
            {
                if (!first) line.Append(", ");
                first = false;
                line.Append(header.Key).Append(": ").Append(SecretHeaders.Contains(header.Key) ? Mark : header.Value);
            }
            return line.Append('}').ToString();
        }

        /// <summary>
        /// The body as JSON with its secrets blanked. <paramref name="request"/>: also "code" (the e-mailed
        /// reset and verification codes; in answers "code" is an error code, kept).
        /// </summary>
        public static string Body(JsonNode body, bool request)
        {
            return Cut(Blank(body, request, 0).ToJson());
        }

        /// <summary>A body that is not JSON (a proxy's page): cut, never parsed.</summary>
        public static string Text(string body)
        {
            return Cut(body);
        }

        /// <summary><paramref name="message"/> with every occurrence of <paramref name="secret"/> blanked (secrets shorter than 8 characters are left: they would blank ordinary words).</summary>
        public static string Literal(string message, string secret)
        {
            if (string.IsNullOrEmpty(message) || string.IsNullOrEmpty(secret) || secret.Length < 8) return message;
            return message.Replace(secret, Mark);
        }

        public static bool IsSecretName(string name, bool request)
        {
            string plain = name.Replace("_", "").Replace("-", "").ToLowerInvariant();
            if (plain == "tokentype") return false;
            if (plain.Contains("password") || plain.Contains("token") || plain.Contains("secret")) return true;
            if (request && plain == "code") return true;
            return SecretNames.Contains(plain);
        }

        private static JsonNode Blank(JsonNode node, bool request, int depth)
        {
            if (node == null || depth > 64) return node;
            if (node.Kind == JsonKind.Object)
            {
                JsonNode copy = JsonNode.NewObject();
                foreach (KeyValuePair<string, JsonNode> member in node.Members)
                {
                    bool secret = IsSecretName(member.Key, request) && member.Value != null && member.Value.Kind != JsonKind.Null;
                    copy.Set(member.Key, secret ? JsonNode.From(Mark) : Blank(member.Value, request, depth + 1));
                }
                return copy;
            }
            if (node.Kind == JsonKind.Array)
            {
                JsonNode copy = JsonNode.NewArray();
                foreach (JsonNode item in node.Items) copy.Add(Blank(item, request, depth + 1));
                return copy;
            }
            return node;
        }

        private static string Cut(string text)
        {
            if (text == null) return "";
            return text.Length <= MaxBody ? text : text.Substring(0, MaxBody) + "… (" + text.Length + " characters)";
        }
    }
}

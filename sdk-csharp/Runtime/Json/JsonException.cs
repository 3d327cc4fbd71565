using System;
using System.Globalization;

namespace GameBackend.Json
{
    /// <summary>
    /// A JSON text that is not valid JSON (RFC 8259), or a JSON value read as the wrong kind
    /// (for example <c>AsString()</c> on a number).
    /// </summary>
    public sealed class JsonException : FormatException
    {
        /// <summary>
        /// The zero-based index (in UTF-16 code units) of the character where parsing failed
        /// (the text's length when the text ended too early); -1 when the error is not about a
        /// position in a text (a wrong kind, a missing field).
        /// </summary>
        public int Position { get; }

        /// <summary>An error that is not about a position in a text (Position is -1).</summary>
        public JsonException(string message) : base(message)
        {
            Position = -1;
        }

        /// <summary>An error that is not about a position in a text (Position is -1).</summary>
        public JsonException(string message, Exception innerException) : base(message, innerException)
        {
            Position = -1;
        }

        /// <summary>A parse error; the message gets " at character {position}" appended.</summary>
        public JsonException(string message, int position)
            : base(message + " at character " + position.ToString(CultureInfo.InvariantCulture))
        {
            Position = position;
        }
    }
}

using System;
using System.Globalization;
using System.Text;

namespace GameBackend.Json
{
    /// <summary>Number text &lt;-&gt; double, culture-independent.</summary>
    internal static class JsonNumbers
    {
        /// <summary>
        /// The text JavaScript's Number.prototype.toString (and JSON.stringify) gives for d:
        /// the shortest digits that read back as d, laid out as ECMAScript says (plain notation for
        /// 1e-7 &lt; |d| &lt; 1e21, else "d.ddde+x"). -0 gives "-0" (JavaScript would print "0").
        /// d must be finite.
        /// </summary>
        internal static string FormatDouble(double d)
        {
            if (d == 0) return BitConverter.DoubleToInt64Bits(d) < 0 ? "-0" : "0";
            bool negative = d < 0;
            double a = negative ? -d : d;
            string e = null;
            // For a normal double the 15-digit rounding, trailing zeros dropped, is the shortest form
            // whenever 15 digits suffice; a subnormal has fewer bits, so it may need fewer digits.
            int first = a < 2.2250738585072014E-308 ? 1 : 15;
            for (int precision = first; precision <= 17; precision++)
            {
                e = a.ToString("E" + (precision - 1).ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
                if (precision == 17) break;
                double back;
                if (double.TryParse(e, NumberStyles.Float, CultureInfo.InvariantCulture, out back) && back == a) break;
            }
            // e is "d.ddd…E+xxx" ("dE+xxx" for precision 1).
            int ePos = e.IndexOf('E');
            var digits = new StringBuilder(17);
            for (int i = 0; i < ePos; i++)
            {
                if (e[i] != '.') digits.Append(e[i]);
            }
            int exponent = int.Parse(e.Substring(ePos + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
            while (digits.Length > 1 && digits[digits.Length - 1] == '0') digits.Length--;
            string s = digits.ToString();
            int k = s.Length;
            int n = exponent + 1;                    // the value is 0.s × 10^n
            var sb = new StringBuilder(24);
            if (negative) sb.Append('-');
            if (k <= n && n <= 21)
            {
                sb.Append(s).Append('0', n - k);
            }
            else if (0 < n && n <= 21)
            {
                sb.Append(s, 0, n).Append('.').Append(s, n, k - n);
            }
            else if (-6 < n && n <= 0)
            {
                sb.Append("0.").Append('0', -n).Append(s);
            }
            else
            {
                sb.Append(s[0]);
                if (k > 1) sb.Append('.').Append(s, 1, k - 1);
                sb.Append('e').Append(n - 1 < 0 ? '-' : '+').Append(Math.Abs(n - 1).ToString(CultureInfo.InvariantCulture));
            }
            return sb.ToString();
        }

        /// <summary>A JSON number lexeme as the nearest double; JsonException beyond double's range.</summary>
        internal static double ParseDouble(string text)
        {
            double v;
            try
            {
                v = double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
            }
            catch (OverflowException)
            {
                throw new JsonException("The number " + text + " is beyond the range of a double");
            }
            if (double.IsInfinity(v) || double.IsNaN(v))
                throw new JsonException("The number " + text + " is beyond the range of a double");
            if (v == 0 && text.Length > 0 && text[0] == '-') return -0.0;
            return v;
        }
    }
}

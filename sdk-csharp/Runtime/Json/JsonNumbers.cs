using System;
using System.Globalization;
using System.Text;

namespace GameBackend.Json
{
    /// <summary>
    /// Number text &lt;-&gt; double, exact and culture-independent. The framework's own conversions are
    /// not used for the hard cases: Mono's double.Parse and "E"/"R" formatting are off by one unit in
    /// the last place for some values (about 1 in 1,000 random doubles).
    /// </summary>
    internal static class JsonNumbers
    {
        // ------------------------------------------------------------------ double -> text

        /// <summary>
        /// The text JavaScript's Number.prototype.toString (and JSON.stringify) gives for d:
        /// the shortest digits that read back as d (the nearest such digits when there are several),
        /// laid out as ECMAScript says (plain notation for 1e-7 &lt; |d| &lt; 1e21, else "d.ddde+x").
        /// -0 gives "-0" (JavaScript would print "0"). d must be finite.
        /// </summary>
        internal static string FormatDouble(double d)
        {
            if (d == 0) return BitConverter.DoubleToInt64Bits(d) < 0 ? "-0" : "0";
            if (d >= -9007199254740992.0 && d <= 9007199254740992.0 && d == Math.Floor(d))
                return ((long)d).ToString(CultureInfo.InvariantCulture);     // an integer: its digits are exact
            bool negative = d < 0;
            int n;
            string s = ShortestDigits(negative ? -d : d, out n);
            int k = s.Length;
            var sb = new StringBuilder(26);
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
                int e = n - 1;
                sb.Append('e').Append(e < 0 ? '-' : '+').Append((e < 0 ? -e : e).ToString(CultureInfo.InvariantCulture));
            }
            return sb.ToString();
        }

        /// <summary>
        /// The shortest digit string s (no leading or trailing zeros) with v = 0.s × 10^n reading back
        /// as v; among several, the nearest to v (ties: the even digit). Burger &amp; Dybvig's free-format
        /// algorithm with exact big integers. v must be positive and finite.
        /// </summary>
        internal static string ShortestDigits(double v, out int n)
        {
            long bits = BitConverter.DoubleToInt64Bits(v);
            int biased = (int)((bits >> 52) & 0x7FF);
            ulong mantissa = (ulong)bits & 0xFFFFFFFFFFFFFUL;
            ulong f;
            int e;
            if (biased == 0)
            {
                f = mantissa;
                e = -1074;
            }
            else
            {
                f = mantissa | (1UL << 52);
                e = biased - 1075;
            }
            bool even = (f & 1) == 0;
            bool lowerCloser = mantissa == 0 && biased > 1;      // the gap below is half the gap above

            // v = r / s; the midpoints to the neighbours are v + mPlus / s and v - mMinus / s.
            JsonBigInteger r, s, mPlus, mMinus;
            if (e >= 0)
            {
                if (!lowerCloser)
                {
                    r = JsonBigInteger.From(f).ShiftLeft(e + 1);
                    s = JsonBigInteger.From(2);
                    mPlus = JsonBigInteger.From(1).ShiftLeft(e);
                    mMinus = JsonBigInteger.From(1).ShiftLeft(e);
                }
                else
                {
                    r = JsonBigInteger.From(f).ShiftLeft(e + 2);
                    s = JsonBigInteger.From(4);
                    mPlus = JsonBigInteger.From(1).ShiftLeft(e + 1);
                    mMinus = JsonBigInteger.From(1).ShiftLeft(e);
                }
            }
            else if (!lowerCloser)
            {
                r = JsonBigInteger.From(f).ShiftLeft(1);
                s = JsonBigInteger.From(1).ShiftLeft(1 - e);
                mPlus = JsonBigInteger.From(1);
                mMinus = JsonBigInteger.From(1);
            }
            else
            {
                r = JsonBigInteger.From(f).ShiftLeft(2);
                s = JsonBigInteger.From(1).ShiftLeft(2 - e);
                mPlus = JsonBigInteger.From(2);
                mMinus = JsonBigInteger.From(1);
            }

            // Scale so that 0.1 <= (r + mPlus) / s < 1 (<= 1 when the boundary reads back as v).
            int k = (int)Math.Ceiling(Math.Log10(v) - 1e-10);
            if (k >= 0) s.MultiplyPow10(k);
            else
            {
                r.MultiplyPow10(-k);
                mPlus.MultiplyPow10(-k);
                mMinus.MultiplyPow10(-k);
            }
            while (true)
            {
                int c = JsonBigInteger.Compare(JsonBigInteger.Add(r, mPlus), s);
                if (even ? c >= 0 : c > 0)
                {
                    s.MultiplyPow10(1);
                    k++;
                    continue;
                }
                var high10 = JsonBigInteger.Add(r, mPlus).MultiplyPow10(1);
                c = JsonBigInteger.Compare(high10, s);
                if (even ? c < 0 : c <= 0)
                {
                    r.MultiplyPow10(1);
                    mPlus.MultiplyPow10(1);
                    mMinus.MultiplyPow10(1);
                    k--;
                    continue;
                }
                break;
            }

            var digits = new StringBuilder(17);
            while (true)
            {
                r.MultiplyPow10(1);
                mPlus.MultiplyPow10(1);
                mMinus.MultiplyPow10(1);
                int digit = r.DivideSmallQuotient(s);
                int low = JsonBigInteger.Compare(r, mMinus);
                int high = JsonBigInteger.Compare(JsonBigInteger.Add(r, mPlus), s);
                bool tc1 = even ? low <= 0 : low < 0;
                bool tc2 = even ? high >= 0 : high > 0;
                if (!tc1 && !tc2)
                {
                    digits.Append((char)('0' + digit));
                    continue;
                }
                if (tc1 && tc2)
                {
                    int half = JsonBigInteger.Compare(JsonBigInteger.Add(r, r), s);
                    if (half > 0 || (half == 0 && (digit & 1) == 1)) digit++;
                }
                else if (tc2)
                {
                    digit++;
                }
                digits.Append((char)('0' + digit));
                break;
            }
            n = k;
            return digits.ToString();
        }

        // ------------------------------------------------------------------ text -> double

        private static readonly double[] ExactPowersOf10 =
        {
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
        };

        private const int MaxDigits = 800;           // more never changes the rounding (beyond them: a sticky digit)

        /// <summary>
        /// A JSON number lexeme (already checked against the grammar) as the nearest double, ties to even;
        /// JsonException when the magnitude rounds beyond double's range. "-0" (and negative underflow)
        /// give negative zero.
        /// </summary>
        internal static double ParseDouble(string text)
        {
            int i = 0, len = text.Length;
            bool negative = false;
            if (i < len && text[i] == '-')
            {
                negative = true;
                i++;
            }
            // Significant digits (no leading zeros) and the decimal exponent: value = digits × 10^exp10.
            var digits = new StringBuilder(24);
            long exp10 = 0;
            bool sticky = false;
            for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) AppendDigit(digits, text[i], false, ref exp10, ref sticky);
            if (i < len && text[i] == '.')
            {
                for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++) AppendDigit(digits, text[i], true, ref exp10, ref sticky);
            }
            if (i < len && (text[i] == 'e' || text[i] == 'E'))
            {
                i++;
                bool expNegative = false;
                if (i < len && (text[i] == '+' || text[i] == '-'))
                {
                    expNegative = text[i] == '-';
                    i++;
                }
                long exp = 0;
                for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
                {
                    if (exp < 100000000) exp = exp * 10 + (text[i] - '0');   // beyond: saturate (far outside any double)
                }
                exp10 += expNegative ? -exp : exp;
            }
            if (i != len) throw new JsonException("Not a JSON number: " + text);
            if (sticky)
            {
                digits.Append('1');
                exp10--;
            }
            while (digits.Length > 0 && digits[digits.Length - 1] == '0')
            {
                digits.Length--;
                exp10++;
            }
            if (digits.Length == 0) return negative ? -0.0 : 0.0;

            long pointPosition = digits.Length + exp10;      // value = 0.digits × 10^pointPosition
            if (pointPosition > 310) throw OutOfRange(text);
            if (pointPosition < -324) return negative ? -0.0 : 0.0;

            double result;
            if (digits.Length <= 15 && exp10 >= -22 && exp10 <= 22)
            {
                // Clinger's fast path: both operands exact, so one IEEE operation rounds correctly.
                double m = (double)long.Parse(digits.ToString(), NumberStyles.None, CultureInfo.InvariantCulture);
                result = exp10 >= 0 ? m * ExactPowersOf10[exp10] : m / ExactPowersOf10[-exp10];
            }
            else
            {
                result = Correct(digits.ToString(), (int)exp10, text);
            }
            return negative ? -result : result;
        }

        private static void AppendDigit(StringBuilder digits, char c, bool fraction, ref long exp10, ref bool sticky)
        {
            if (digits.Length == 0 && c == '0')
            {
                if (fraction) exp10--;                          // a leading zero after the point
                return;
            }
            if (digits.Length < MaxDigits)
            {
                digits.Append(c);
                if (fraction) exp10--;
            }
            else
            {
                if (c != '0') sticky = true;
                if (!fraction) exp10++;
            }
        }

        private static JsonException OutOfRange(string text)
        {
            return new JsonException("The number " + text + " is beyond the range of a double");
        }

        /// <summary>The double nearest to digits × 10^exp10 (positive), exactly: a first guess, then corrected.</summary>
        private static double Correct(string digits, int exp10, string text)
        {
            double guess;
            string approx = digits.Length > 17 ? digits.Substring(0, 17) : digits;
            int approxExp = exp10 + (digits.Length - approx.Length);
            if (!double.TryParse(approx + "E" + approxExp.ToString(CultureInfo.InvariantCulture), NumberStyles.Float, CultureInfo.InvariantCulture, out guess)
                || double.IsInfinity(guess) || double.IsNaN(guess))
            {
                guess = approxExp > 0 ? double.MaxValue : 0.0;
            }

            JsonBigInteger value = JsonBigInteger.From(0);
            for (int i = 0; i < digits.Length; i++) value.MultiplyAdd(10, (uint)(digits[i] - '0'));

            for (int step = 0; step < 100; step++)
            {
                long bits = BitConverter.DoubleToInt64Bits(guess);
                int biased = (int)((bits >> 52) & 0x7FF);
                ulong mantissa = (ulong)bits & 0xFFFFFFFFFFFFFUL;
                ulong f = biased == 0 ? mantissa : mantissa | (1UL << 52);
                int e = biased == 0 ? -1074 : biased - 1075;
                bool odd = (f & 1) == 1;

                // The midpoint above: (2f + 1) × 2^(e-1).
                int c = CompareDecimalWithBinary(value, exp10, 2 * f + 1, e - 1);
                if (c > 0 || (c == 0 && odd))
                {
                    if (bits == 0x7FEFFFFFFFFFFFFFL) throw OutOfRange(text);    // rounds up past double.MaxValue
                    guess = BitConverter.Int64BitsToDouble(bits + 1);
                    continue;
                }
                if (f == 0) return guess;                                         // 0 and below the midpoint
                // The midpoint below: closer when f is a power of two above the smallest normal.
                bool lowerCloser = mantissa == 0 && biased > 1;
                c = lowerCloser
                    ? CompareDecimalWithBinary(value, exp10, 4 * f - 1, e - 2)
                    : CompareDecimalWithBinary(value, exp10, 2 * f - 1, e - 1);
                if (c < 0 || (c == 0 && odd))
                {
                    guess = BitConverter.Int64BitsToDouble(bits - 1);
                    continue;
                }
                return guess;
            }
            throw new InvalidOperationException("double conversion did not converge for " + text);
        }

        /// <summary>Compares value × 10^exp10 with m × 2^exp2, exactly.</summary>
        private static int CompareDecimalWithBinary(JsonBigInteger value, int exp10, ulong m, int exp2)
        {
            JsonBigInteger left = value.Clone();
            JsonBigInteger right = JsonBigInteger.From(m);
            if (exp10 >= 0) left.MultiplyPow10(exp10);
            else right.MultiplyPow10(-exp10);
            if (exp2 >= 0) right.ShiftLeft(exp2);
            else left.ShiftLeft(-exp2);
            return JsonBigInteger.Compare(left, right);
        }
    }
}

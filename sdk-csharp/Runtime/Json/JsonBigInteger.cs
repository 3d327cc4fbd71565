using System;

namespace GameBackend.Json
{
    /// <summary>
    /// A minimal unsigned big integer (little-endian 32-bit words) for exact decimal/binary number
    /// conversion; System.Numerics is not referenced so the runtime needs nothing beyond mscorlib.
    /// </summary>
    internal sealed class JsonBigInteger
    {
        private uint[] words;
        private int length;                          // words in use; no leading zero words

        private JsonBigInteger(int capacity)
        {
            words = new uint[Math.Max(capacity, 4)];
        }

        internal static JsonBigInteger From(ulong value)
        {
            var b = new JsonBigInteger(4);
            b.words[0] = (uint)value;
            b.words[1] = (uint)(value >> 32);
            b.length = b.words[1] != 0 ? 2 : b.words[0] != 0 ? 1 : 0;
            return b;
        }

        internal JsonBigInteger Clone()
        {
            var b = new JsonBigInteger(words.Length);
            Array.Copy(words, b.words, length);
            b.length = length;
            return b;
        }

        internal bool IsZero { get { return length == 0; } }

        private void Ensure(int count)
        {
            if (words.Length >= count) return;
            var bigger = new uint[Math.Max(count, words.Length * 2)];
            Array.Copy(words, bigger, length);
            words = bigger;
        }

        /// <summary>this = this * m + add.</summary>
        internal JsonBigInteger MultiplyAdd(uint m, uint add)
        {
            ulong carry = add;
            for (int i = 0; i < length; i++)
            {
                ulong p = (ulong)words[i] * m + carry;
                words[i] = (uint)p;
                carry = p >> 32;
            }
            if (carry != 0)
            {
                Ensure(length + 1);
                words[length++] = (uint)carry;
            }
            return this;
        }

        private static readonly uint[] SmallPowersOf10 = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };

        /// <summary>this = this * 10^n (n &gt;= 0).</summary>
        internal JsonBigInteger MultiplyPow10(int n)
        {
            while (n >= 9)
            {
                MultiplyAdd(1000000000, 0);
                n -= 9;
            }
            if (n > 0) MultiplyAdd(SmallPowersOf10[n], 0);
            return this;
        }

        /// <summary>this = this * 2^n (n &gt;= 0).</summary>
        internal JsonBigInteger ShiftLeft(int n)
        {
            if (length == 0 || n == 0) return this;
            int wordShift = n >> 5, bitShift = n & 31;
            Ensure(length + wordShift + 1);
            words[length + wordShift] = 0;
            if (bitShift == 0)
            {
                for (int i = length - 1; i >= 0; i--) words[i + wordShift] = words[i];
            }
            else
            {
                for (int i = length - 1; i >= 0; i--)
                {
                    words[i + wordShift + 1] |= words[i] >> (32 - bitShift);
                    words[i + wordShift] = words[i] << bitShift;
                }
            }
            for (int i = 0; i < wordShift; i++) words[i] = 0;
            length += wordShift + 1;
            Trim();
            return this;
        }

        private void Trim()
        {
            while (length > 0 && words[length - 1] == 0) length--;
        }

        internal static int Compare(JsonBigInteger a, JsonBigInteger b)
        {
            if (a.length != b.length) return a.length < b.length ? -1 : 1;
            for (int i = a.length - 1; i >= 0; i--)
            {
                if (a.words[i] != b.words[i]) return a.words[i] < b.words[i] ? -1 : 1;
            }
            return 0;
        }

        /// <summary>a + b, a new number.</summary>
        internal static JsonBigInteger Add(JsonBigInteger a, JsonBigInteger b)
        {
            if (a.length < b.length)
            {
                var t = a;
                a = b;
                b = t;
            }
            var sum = new JsonBigInteger(a.length + 1);
            ulong carry = 0;
            for (int i = 0; i < a.length; i++)
            {
                ulong s = (ulong)a.words[i] + (i < b.length ? b.words[i] : 0u) + carry;
                sum.words[i] = (uint)s;
                carry = s >> 32;
            }
            sum.length = a.length;
            if (carry != 0) sum.words[sum.length++] = (uint)carry;
            return sum;
        }

        /// <summary>this = this - b; requires this &gt;= b.</summary>
        internal JsonBigInteger Subtract(JsonBigInteger b)
        {
            long borrow = 0;
            for (int i = 0; i < length; i++)
            {
                long d = (long)words[i] - (i < b.length ? b.words[i] : 0u) - borrow;
                if (d < 0)
                {
                    d += 1L << 32;
                    borrow = 1;
                }
                else
                {
                    borrow = 0;
                }
                words[i] = (uint)d;
            }
            Trim();
            return this;
        }

        /// <summary>q = floor(this / divisor) for a quotient known to be below 10; this becomes the remainder.</summary>
        internal int DivideSmallQuotient(JsonBigInteger divisor)
        {
            int q = 0;
            while (Compare(this, divisor) >= 0)
            {
                Subtract(divisor);
                q++;
            }
            return q;
        }
    }
}

using System;
using System.Collections.Generic;
using GameBackend.Json;

namespace GameBackend
{
    /// <summary>The defaults of <see cref="GameClientOptions"/>: Unity's parts in Unity, .NET's elsewhere.</summary>
    internal static class Defaults
    {
        public static ISessionStore Store()
        {
#if UNITY_5_3_OR_NEWER
            return new PlayerPrefsSessionStore();
#else
            return new MemorySessionStore();
#endif
        }

        public static IHttpTransport Transport()
        {
#if UNITY_5_3_OR_NEWER
            return new UnityWebRequestTransport();
#else
            return new HttpClientTransport();
#endif
        }

        public static IDelay Delay()
        {
#if UNITY_5_3_OR_NEWER
            return new UnityDelay();
#else
            return new TaskDelay();
#endif
        }

        public static string ClientVersion()
        {
#if UNITY_5_3_OR_NEWER
            return UnityClientInfo.Version;
#else
            return null;
#endif
        }

        public static string Platform()
        {
#if UNITY_5_3_OR_NEWER
            return UnityClientInfo.Platform;
#else
            return Platforms.OfThisProcess();
#endif
        }
    }

    /// <summary>Turns a 2xx answer into a model; an answer that does not match the contract becomes UNEXPECTED_RESPONSE.</summary>
    internal static class AnswerReader
    {
        public static T Read<T>(Answer answer, Func<JsonNode, T> parse)
        {
            try
            {
                if (answer.Body == null) throw new FormatException("The answer had no body.");
                return parse(answer.Body);
            }
            catch (JsonException error)
            {
                throw Unexpected(answer, error);
            }
            catch (FormatException error)
            {
                throw Unexpected(answer, error);
            }
        }

        public static List<T> ReadList<T>(Answer answer, Func<JsonNode, T> parse)
        {
            return Read(answer, body =>
            {
                if (body.Kind != JsonKind.Array) throw new FormatException("Expected an array.");
                List<T> items = new List<T>(body.Count);
                foreach (JsonNode item in body.Items) items.Add(parse(item));
                return items;
            });
        }

        private static GameApiException Unexpected(Answer answer, Exception error)
        {
            return new GameApiException(answer.Status, ErrorCodes.UnexpectedResponse,
                "The answer did not match the API contract: " + error.Message, null, answer.RequestId, null, error);
        }
    }
}

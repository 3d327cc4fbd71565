// Compile-only stand-ins for the few Unity 2021.3 types the SDK's Unity files
// (Runtime/Unity/*.cs) and the Quickstart sample (Samples~/Quickstart) use: the same namespaces,
// type names, member names and signatures as UnityEngine.CoreModule /
// UnityEngine.UnityWebRequestModule, nothing else. They prove that those files compile with
// -define:UNITY_5_3_OR_NEWER (sdk-csharp/Tools~/build.mjs --unity builds UnityEngine.dll from
// this folder); they do not run: every body throws. Whether the files behave in Unity is not
// verified here (docs/sdk/unity.md, "What is verified where").
// Add a member here only when the SDK starts using it, with Unity's real signature.
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    internal static class Stub
    {
        internal static Exception NotUnity()
        {
            return new NotSupportedException("UnityEngine stub: compile-only, this is not Unity.");
        }
    }

    public enum RuntimePlatform
    {
        OSXEditor = 0,
        OSXPlayer = 1,
        WindowsPlayer = 2,
        WindowsEditor = 7,
        IPhonePlayer = 8,
        Android = 11,
        LinuxPlayer = 13,
        LinuxEditor = 16,
        WebGLPlayer = 17,
        WSAPlayerX86 = 18,
        WSAPlayerX64 = 19,
        WSAPlayerARM = 20,
        PS4 = 25,
        tvOS = 31,
        Switch = 32,
        GameCoreXboxSeries = 36,
        GameCoreXboxOne = 37,
        PS5 = 38,
    }

    public sealed class Application
    {
        public static string version { get { throw Stub.NotUnity(); } }
        public static RuntimePlatform platform { get { throw Stub.NotUnity(); } }
    }

    public class PlayerPrefs
    {
        public static bool HasKey(string key) { throw Stub.NotUnity(); }
        public static string GetString(string key) { throw Stub.NotUnity(); }
        public static string GetString(string key, string defaultValue) { throw Stub.NotUnity(); }
        public static void SetString(string key, string value) { throw Stub.NotUnity(); }
        public static void DeleteKey(string key) { throw Stub.NotUnity(); }
        public static void Save() { throw Stub.NotUnity(); }
    }

    public class Time
    {
        public static double realtimeSinceStartupAsDouble { get { throw Stub.NotUnity(); } }
    }

    public class YieldInstruction
    {
    }

    public class AsyncOperation : YieldInstruction
    {
        public event Action<AsyncOperation> completed
        {
            add { throw Stub.NotUnity(); }
            remove { throw Stub.NotUnity(); }
        }
    }

    public class Object
    {
    }

    public class Component : Object
    {
    }

    public class Behaviour : Component
    {
    }

    public class MonoBehaviour : Behaviour
    {
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public abstract class PropertyAttribute : Attribute
    {
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = true)]
    public class HeaderAttribute : PropertyAttribute
    {
        public readonly string header;
        public HeaderAttribute(string header) { this.header = header; }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public class TooltipAttribute : PropertyAttribute
    {
        public readonly string tooltip;
        public TooltipAttribute(string tooltip) { this.tooltip = tooltip; }
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class SerializeField : Attribute
    {
    }

    public static class JsonUtility
    {
        public static string ToJson(object obj) { throw Stub.NotUnity(); }
        public static T FromJson<T>(string json) { throw Stub.NotUnity(); }
    }

    public static class Random
    {
        public static int Range(int minInclusive, int maxExclusive) { throw Stub.NotUnity(); }
    }

    public class Debug
    {
        public static void Log(object message) { throw Stub.NotUnity(); }
        public static void LogWarning(object message) { throw Stub.NotUnity(); }
        public static void LogError(object message) { throw Stub.NotUnity(); }
    }
}

namespace UnityEngine.Networking
{
    public class UnityWebRequest : IDisposable
    {
        public enum Result
        {
            InProgress,
            Success,
            ConnectionError,
            ProtocolError,
            DataProcessingError,
        }

        public UnityWebRequest(string url, string method) { throw Stub.NotUnity(); }

        public DownloadHandler downloadHandler { get { throw Stub.NotUnity(); } set { throw Stub.NotUnity(); } }
        public UploadHandler uploadHandler { get { throw Stub.NotUnity(); } set { throw Stub.NotUnity(); } }
        public int timeout { get { throw Stub.NotUnity(); } set { throw Stub.NotUnity(); } }
        public Result result { get { throw Stub.NotUnity(); } }
        public long responseCode { get { throw Stub.NotUnity(); } }
        public string error { get { throw Stub.NotUnity(); } }

        public void SetRequestHeader(string name, string value) { throw Stub.NotUnity(); }
        public UnityWebRequestAsyncOperation SendWebRequest() { throw Stub.NotUnity(); }
        public Dictionary<string, string> GetResponseHeaders() { throw Stub.NotUnity(); }
        public void Abort() { throw Stub.NotUnity(); }
        public void Dispose() { throw Stub.NotUnity(); }
    }

    public class UnityWebRequestAsyncOperation : AsyncOperation
    {
    }

    public class DownloadHandler : IDisposable
    {
        public byte[] data { get { throw Stub.NotUnity(); } }
        public void Dispose() { throw Stub.NotUnity(); }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler
    {
        public DownloadHandlerBuffer() { throw Stub.NotUnity(); }
    }

    public class UploadHandler : IDisposable
    {
        public string contentType { get { throw Stub.NotUnity(); } set { throw Stub.NotUnity(); } }
        public void Dispose() { throw Stub.NotUnity(); }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public UploadHandlerRaw(byte[] data) { throw Stub.NotUnity(); }
    }
}

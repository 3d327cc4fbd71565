using System.Runtime.CompilerServices;

// The NUnit suite (sdk-csharp/Tests~) reads the generated models' and the JSON mapping's internals.
[assembly: InternalsVisibleTo("GameBackend.Tests")]

// The headless sample: plays the sample game's loop (Coin Cascade, /play) against a game backend with
// the C# SDK, the way a Unity game would, and prints each step. Exit code 0 on success, 1 on failure.
//
//   mono HeadlessSample.exe [baseUrl] [clientKey] [sessionFile]
//
//   baseUrl      argument 1, else env GB_BASE_URL, else "baseUrl" of .data/demo.json, else http://localhost:3000
//   clientKey    argument 2, else env GB_API_KEY, else "apiKey" of .data/demo.json (the demo's client key,
//                as docs/quickstart.md reads it; DATA_DIR moves .data)
//   sessionFile  argument 3, else env GB_SESSION_FILE, else a new temporary file (removed at the end).
//                Run twice with the same file: the second run restores the session instead of signing in.
//
// The project needs what the demo seeds: the board "high-scores", the currency "coins" and the
// purchase "buy-potion" (10 coins for a potion).
//
// Build: node sdk-csharp/Tools~/build.mjs --tests  (writes sdk-csharp/bin~/HeadlessSample.exe), or by hand:
//   mcs -langversion:7.2 -r:sdk-csharp/bin~/GameBackend.dll -out:HeadlessSample.exe sdk-csharp/Samples~/Headless/*.cs
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using GameBackend;
using GameBackend.Json;

namespace GameBackend.Samples.Headless
{
    public static class Program
    {
        const string Board = "high-scores";
        const string SettingsKey = "settings";
        const string ProgressKey = "progress";
        const string BuyPotion = "buy-potion";

        public static int Main(string[] args)
        {
            try
            {
                // No async Main in this C# subset: block on the game's async loop.
                Run(args).GetAwaiter().GetResult();
                Console.WriteLine("OK: the sample game's loop ran to the end.");
                return 0;
            }
            catch (GameApiException e)
            {
                Console.Error.WriteLine("FAILED: " + e.GetType().Name + " " + e.Status.ToString(CultureInfo.InvariantCulture) + " " + e.Code + ": " + e.Message + " details " + e.DetailsJson + " request " + e.RequestId);
                Console.Error.WriteLine(e);
                return 1;
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("FAILED: " + e);
                return 1;
            }
        }

        static async Task Run(string[] args)
        {
            JsonNode demo = ReadDemoFile();
            string baseUrl = Arg(args, 0) ?? Env("GB_BASE_URL") ?? Member(demo, "baseUrl") ?? "http://localhost:3000";
            string apiKey = Arg(args, 1) ?? Env("GB_API_KEY") ?? Member(demo, "apiKey");
            if (apiKey == null) throw new ArgumentException("No client key: pass it as the second argument, set GB_API_KEY, or seed the demo (.data/demo.json).");
            string givenFile = Arg(args, 2) ?? Env("GB_SESSION_FILE");
            string sessionFile = givenFile ?? Path.Combine(Path.GetTempPath(), "gb-headless-" + Guid.NewGuid().ToString("N") + ".json");
            string secondDevice = Path.Combine(Path.GetTempPath(), "gb-headless-device-b-" + Guid.NewGuid().ToString("N") + ".json");
            Console.WriteLine("Backend " + baseUrl + ", session file " + sessionFile);
            try
            {
                await Play(baseUrl, apiKey, sessionFile, secondDevice);
            }
            finally
            {
                if (givenFile == null) DeleteQuietly(sessionFile);
                DeleteQuietly(secondDevice);
            }
        }

        static GameClient Connect(string baseUrl, string apiKey, string sessionFile)
        {
            var client = new GameClient(new GameClientOptions
            {
                BaseUrl = baseUrl,
                ApiKey = apiKey,
                SessionStore = new FileSessionStore(sessionFile),
                ClientVersion = "1.0.0",
            });
            client.SessionChanged += session =>
                Console.WriteLine(session == null ? "  (session ended)" : "  (session of player " + session.PlayerId + ", valid until " + session.ExpiresAt.ToString("u", CultureInfo.InvariantCulture) + ")");
            return client;
        }

        static async Task Play(string baseUrl, string apiKey, string sessionFile, string secondDevice)
        {
            // 1. Start: restore the stored session, or sign in a guest the first time.
            GameClient game = Connect(baseUrl, apiKey, sessionFile);
            await game.ReadyAsync();
            if (game.Session == null)
            {
                Session guest = await game.Auth.AnonymousAsync();
                Console.WriteLine("1. Signed in a new guest: player " + guest.PlayerId);
            }
            else
            {
                Console.WriteLine("1. Restored the stored session: player " + game.Session.PlayerId);
            }
            string playerId = game.Session.PlayerId;

            // 2. The game restarts: a new client on the same file restores the same player.
            game = Connect(baseUrl, apiKey, sessionFile);
            await game.ReadyAsync();
            if (game.Session == null || game.Session.PlayerId != playerId) throw new InvalidOperationException("The session was not restored from " + sessionFile);
            PlayerProfile me = await game.Players.MeAsync();
            Console.WriteLine("2. Restarted and restored player " + me.PlayerId + " (name: " + (me.DisplayName ?? "none") + ")");

            // 3. Settings, as the settings panel writes them (raw JSON, as the game serialises it).
            JsonNode settings = await ReadSettings(game);
            settings.Set("difficulty", JsonNode.From("hard")).Set("sound", JsonNode.From(false));
            DataRecord savedSettings = await game.Data.SetAsync(SettingsKey, settings.ToJson());
            Console.WriteLine("3. Settings saved at version " + savedSettings.Version.ToString(CultureInfo.InvariantCulture) + ": " + savedSettings.Value);

            // 4. A round, then its progress to the cloud save at the version this device knows.
            var rounds = new Random(33);
            Cloud cloud = await ReadProgress(game);
            Round round = PlayRound(rounds);
            Console.WriteLine("4. Played a round: score " + round.Score + ", " + round.Coins + " coins, best combo " + round.Combo);
            JsonNode progress = WithRound(cloud.Progress, round);
            long version = await PutProgress(game, progress, cloud.Version);
            Console.WriteLine("   Progress saved at version " + version.ToString(CultureInfo.InvariantCulture) + ": " + progress.ToJson());

            // 5. A second device (the session file copied, as Steam Cloud or a backup would carry it) plays and saves first.
            File.Copy(sessionFile, secondDevice, true);
            GameClient other = Connect(baseUrl, apiKey, secondDevice);
            await other.ReadyAsync();
            Cloud otherCloud = await ReadProgress(other);
            Round otherRound = PlayRound(rounds);
            long otherVersion = await PutProgress(other, WithRound(otherCloud.Progress, otherRound), otherCloud.Version);
            Console.WriteLine("5. The second device played (score " + otherRound.Score + ") and saved version " + otherVersion.ToString(CultureInfo.InvariantCulture));

            // 6. This device saves its next round at the version it knew: a conflict with the second device's save.
            Round next = PlayRound(rounds);
            JsonNode local = WithRound(progress, next);
            try
            {
                await PutProgress(game, local, version);
                throw new InvalidOperationException("Expected a version conflict with the second device's save");
            }
            catch (VersionConflictException conflict)
            {
                JsonNode cloudCopy = conflict.CurrentSave != null && conflict.CurrentSave.Data != null ? JsonNode.Parse(conflict.CurrentSave.Data) : null;
                Console.WriteLine("6. Conflict: the cloud has version " + (conflict.CurrentVersion.HasValue ? conflict.CurrentVersion.Value.ToString(CultureInfo.InvariantCulture) : "none") +
                                  (cloudCopy != null ? " " + cloudCopy.ToJson() : ""));
                // The player chooses; this sample keeps whichever progress has the better best score.
                if (cloudCopy != null && cloudCopy["bestScore"].AsLong() > local["bestScore"].AsLong())
                {
                    progress = cloudCopy;
                    version = conflict.CurrentVersion.Value;
                    Console.WriteLine("   Kept the cloud's progress (keep-cloud): " + progress.ToJson());
                }
                else
                {
                    version = await PutProgress(game, local, conflict.CurrentVersion);
                    progress = local;
                    Console.WriteLine("   Kept this device's progress (keep-local), saved at version " + version.ToString(CultureInfo.InvariantCulture));
                }
            }

            // 7. The score to the board and the coins to the wallet, then the player's place with two neighbours each side.
            LeaderboardEntry submitted = await game.Leaderboards.SubmitAsync(Board, next.Score,
                JsonNode.NewObject().Set("coins", JsonNode.From((long)next.Coins)).Set("difficulty", JsonNode.From("hard")).ToJson());
            CurrencyChange coins = await game.Economy.AddAsync("coins", next.Coins);
            LeaderboardEntry around = await game.Leaderboards.MeAsync(Board, 2);
            Console.WriteLine("7. Score " + submitted.Score.ToString(CultureInfo.InvariantCulture) + " submitted; rank " + around.Rank.ToString(CultureInfo.InvariantCulture) +
                              " with " + around.Above.Count + " above and " + around.Below.Count + " below; coins now " + coins.Balance.ToString(CultureInfo.InvariantCulture));

            // 8. The shop: a potion for coins.
            PurchaseResult bought = await game.Economy.PurchaseAsync(BuyPotion, 1);
            List<CurrencyBalance> wallet = await game.Economy.CurrenciesAsync();
            List<InventoryEntry> inventory = await game.Economy.InventoryAsync();
            Console.WriteLine("8. Bought a potion (transaction " + bought.TransactionId + "): " +
                              string.Join(", ", wallet.Select(c => c.Id + " " + c.Balance.ToString(CultureInfo.InvariantCulture))) + "; inventory " +
                              string.Join(", ", inventory.Select(i => i.ItemId + " x" + i.Quantity.ToString(CultureInfo.InvariantCulture))));
        }

        sealed class Cloud
        {
            public JsonNode Progress;
            public long? Version;
        }

        sealed class Round
        {
            public int Score;
            public int Coins;
            public int Combo;
        }

        static async Task<JsonNode> ReadSettings(GameClient game)
        {
            try
            {
                DataRecord stored = await game.Data.GetAsync(SettingsKey);
                return JsonNode.Parse(stored.Value);
            }
            catch (GameApiException e)
            {
                if (e.Code != "KEY_NOT_FOUND") throw;
                return JsonNode.NewObject()
                    .Set("sound", JsonNode.From(true))
                    .Set("difficulty", JsonNode.From("normal"))
                    .Set("skin", JsonNode.From("classic"))
                    .Set("reducedMotion", JsonNode.From(false));
            }
        }

        static async Task<Cloud> ReadProgress(GameClient game)
        {
            try
            {
                SaveRecord save = await game.Saves.GetAsync(ProgressKey);
                return new Cloud { Progress = JsonNode.Parse(save.Data), Version = save.Version };
            }
            catch (GameApiException e)
            {
                if (e.Code != "SAVE_NOT_FOUND") throw;
                JsonNode fresh = JsonNode.NewObject()
                    .Set("bestScore", JsonNode.From(0L))
                    .Set("roundsPlayed", JsonNode.From(0L))
                    .Set("coinsEarned", JsonNode.From(0L))
                    .Set("bestCombo", JsonNode.From(0L))
                    .Set("unlocked", JsonNode.NewArray().Add(JsonNode.From("classic")));
                return new Cloud { Progress = fresh, Version = null };
            }
        }

        /// <summary>Writes the progress at the version this device knows (null: no save yet, create it); returns the new version.</summary>
        static async Task<long> PutProgress(GameClient game, JsonNode progress, long? version)
        {
            var options = new SavePutOptions
            {
                MetaJson = JsonNode.NewObject()
                    .Set("label", JsonNode.From("Best " + progress["bestScore"].AsLong().ToString(CultureInfo.InvariantCulture) + " - " + progress["roundsPlayed"].AsLong().ToString(CultureInfo.InvariantCulture) + " rounds"))
                    .Set("device", JsonNode.From("headless"))
                    .ToJson(),
            };
            if (version.HasValue) options.IfVersion = version.Value;
            else options.CreateOnly = true;
            SaveRecord saved = await game.Saves.PutAsync(ProgressKey, progress.ToJson(), options);
            return saved.Version;
        }

        /// <summary>A round of the falling-coins game, played by a seeded "player".</summary>
        static Round PlayRound(Random random)
        {
            int caught = 5 + random.Next(40);
            return new Round { Score = caught * 50 + random.Next(10) * 5, Coins = caught / 4, Combo = 1 + random.Next(caught) };
        }

        static JsonNode WithRound(JsonNode progress, Round round)
        {
            long best = Math.Max(progress["bestScore"].AsLong(), round.Score);
            long played = progress["roundsPlayed"].AsLong() + 1;
            JsonNode unlocked = JsonNode.NewArray();
            var skins = new List<string>(progress["unlocked"].Items.Select(s => s.AsString()));
            if (best >= 1500 && !skins.Contains("gold")) skins.Add("gold");
            if (played >= 5 && !skins.Contains("neon")) skins.Add("neon");
            foreach (string skin in skins) unlocked.Add(JsonNode.From(skin));
            return JsonNode.NewObject()
                .Set("bestScore", JsonNode.From(best))
                .Set("roundsPlayed", JsonNode.From(played))
                .Set("coinsEarned", JsonNode.From(progress["coinsEarned"].AsLong() + round.Coins))
                .Set("bestCombo", JsonNode.From(Math.Max(progress["bestCombo"].AsLong(), (long)round.Combo)))
                .Set("unlocked", unlocked);
        }

        static JsonNode ReadDemoFile()
        {
            string file = Path.Combine(Env("DATA_DIR") ?? ".data", "demo.json");
            if (!File.Exists(file)) return null;
            try
            {
                return JsonNode.Parse(File.ReadAllText(file));
            }
            catch (JsonException)
            {
                return null;
            }
        }

        static string Member(JsonNode node, string name)
        {
            if (node == null || node.Kind != JsonKind.Object) return null;
            JsonNode value = node[name];
            return value != null && value.Kind == JsonKind.String ? value.AsString() : null;
        }

        static string Arg(string[] args, int index)
        {
            return args.Length > index && !string.IsNullOrEmpty(args[index]) ? args[index] : null;
        }

        static string Env(string name)
        {
            string value = Environment.GetEnvironmentVariable(name);
            return string.IsNullOrEmpty(value) ? null : value;
        }

        static void DeleteQuietly(string file)
        {
            try
            {
                if (File.Exists(file)) File.Delete(file);
            }
            catch (IOException)
            {
            }
        }
    }
}

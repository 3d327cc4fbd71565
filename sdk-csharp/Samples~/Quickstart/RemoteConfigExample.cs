using System;
using System.Threading.Tasks;
using GameBackend;
using UnityEngine;

/// <summary>
/// Remote config at start: the values the project's operators set for this player (overrides for
/// an audience, a rollout, a running experiment's variant), read once when the game starts and again
/// when it comes back to the foreground. Cheap to call: the SDK sends the last answer's ETag and the
/// server answers 304 when nothing changed. Offline, GetAsync answers the values kept in the
/// session store (PlayerPrefs here) with Stale = true; before the very first answer, the game's own
/// defaults (the fallbacks below) apply.
/// </summary>
public static class RemoteConfigExample
{
    /// <summary>What the game reads from remote config, with its own defaults.</summary>
    public sealed class Tuning
    {
        public int StartingLives = 3;
        public double ShopDiscount;
        public bool WinterEvent;
        public string MessageOfTheDay = "";
    }

    /// <summary>Call after sign-in (and from OnApplicationPause(false)): the current tuning, or the defaults.</summary>
    public static async Task<Tuning> LoadAsync(GameClient client)
    {
        Tuning tuning = new Tuning();
        RemoteConfig config;
        try
        {
            config = await client.Config.GetAsync();
        }
        catch (GameApiException error)
        {
            // Never answered before and unreachable now (or signed out): play with the defaults.
            Debug.LogWarning("Remote config unavailable (" + error.Code + "): using the game's defaults");
            return tuning;
        }
        if (config.Stale) Debug.Log("Offline: using the remote config kept from version " + config.Version);
        tuning.StartingLives = config.GetInt("lives.start", tuning.StartingLives);
        tuning.ShopDiscount = config.GetNumber("shop.discount", tuning.ShopDiscount);
        tuning.WinterEvent = config.GetBool("event.winter", tuning.WinterEvent);
        tuning.MessageOfTheDay = config.GetString("motd", tuning.MessageOfTheDay);
        // The experiments this player is in (experiment id -> variant id), e.g. for your analytics.
        foreach (var assignment in config.Assignments)
        {
            Debug.Log("Experiment " + assignment.Key + ": variant " + assignment.Value);
        }
        return tuning;
    }
}

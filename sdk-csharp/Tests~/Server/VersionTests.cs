using NUnit.Framework;
using static GameBackend.Tests.Sync;

namespace GameBackend.Tests
{
    /// <summary>Conditional writes: a 412 carries the server's copy (saves: CurrentSave with data; data: CurrentRecord).</summary>
    [TestFixture, Timeout(300000)]
    public sealed class VersionTests
    {
        TestProject project;

        [TestFixtureSetUp]
        public void MakeProject()
        {
            project = Fixtures.Project();
        }

        [Test]
        public void A_save_written_at_a_stale_version_throws_VersionConflictException_with_the_cloud_copy_and_keep_local_overwrites_it()
        {
            var store = new MemorySessionStore();
            GameClient game = Fixtures.Client(project, o => o.SessionStore = store);
            Run(() => game.Auth.AnonymousAsync());
            SaveRecord first = Run(() => game.Saves.PutAsync("slot", "{\"level\":1}", new SavePutOptions { MetaJson = "{\"label\":\"one\"}" }));
            // Another client of the same session (another "device") writes first.
            GameClient other = Fixtures.Client(project, o => o.SessionStore = store);
            Run(() => other.Saves.PutAsync("slot", "{\"level\":5}", new SavePutOptions { IfVersion = first.Version }));

            VersionConflictException conflict = Throws<VersionConflictException>(
                () => game.Saves.PutAsync("slot", "{\"level\":2}", new SavePutOptions { IfVersion = first.Version }));

            Assert.AreEqual(412, conflict.Status);
            Assert.AreEqual("VERSION_CONFLICT", conflict.Code);
            Assert.IsTrue(conflict.CurrentKnown);
            Assert.IsNotNull(conflict.CurrentSave);
            Assert.AreEqual(2, conflict.CurrentSave.Version);
            Assert.AreEqual("{\"level\":5}", RawJson.Canon(conflict.CurrentSave.Data));
            Assert.AreEqual("{\"level\":5}", RawJson.Canon(conflict.CurrentJson));
            Assert.AreEqual(2, conflict.CurrentVersion);
            Assert.IsNull(conflict.CurrentRecord);

            SaveRecord kept = Run(() => game.Saves.PutAsync("slot", "{\"level\":2}", new SavePutOptions { IfVersion = conflict.CurrentVersion }));
            Assert.AreEqual(3, kept.Version);
            Assert.AreEqual("{\"level\":2}", RawJson.Canon(Run(() => game.Saves.GetAsync("slot")).Data));
        }

        [Test]
        public void A_data_delete_at_a_stale_version_throws_VersionConflictException_with_the_stored_record_and_deletes_nothing()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Data.SetAsync("name", "\"first\""));
            Run(() => game.Data.SetAsync("name", "\"second\""));

            VersionConflictException conflict = Throws<VersionConflictException>(() => game.Data.DeleteAsync("name", 1));

            Assert.AreEqual(412, conflict.Status);
            Assert.IsNotNull(conflict.CurrentRecord);
            Assert.AreEqual("name", conflict.CurrentRecord.Key);
            Assert.AreEqual("\"second\"", RawJson.Canon(conflict.CurrentRecord.Value));
            Assert.AreEqual(2, conflict.CurrentRecord.Version);
            Assert.IsNull(conflict.CurrentSave);
            Assert.AreEqual(2, Run(() => game.Data.GetAsync("name")).Version);
        }

        [Test]
        public void A_data_key_set_with_CreateOnly_when_it_exists_throws_VersionConflictException_with_the_stored_record()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.AnonymousAsync());
            Run(() => game.Data.SetAsync("name", "\"first\""));

            VersionConflictException conflict = Throws<VersionConflictException>(
                () => game.Data.SetAsync("name", "\"second\"", new DataSetOptions { CreateOnly = true }));

            Assert.IsNotNull(conflict.CurrentRecord);
            Assert.AreEqual("\"first\"", RawJson.Canon(conflict.CurrentRecord.Value));
            Assert.AreEqual(1, conflict.CurrentRecord.Version);
            Assert.AreEqual("\"first\"", RawJson.Canon(conflict.CurrentJson));
        }

        [Test]
        public void A_save_written_at_a_stale_version_after_the_cloud_copy_was_deleted_reports_it_gone()
        {
            GameClient game = Fixtures.Client(project);
            Run(() => game.Auth.AnonymousAsync());
            SaveRecord first = Run(() => game.Saves.PutAsync("slot", "{\"level\":1}"));
            Run(() => game.Saves.DeleteAsync("slot"));

            VersionConflictException conflict = Throws<VersionConflictException>(
                () => game.Saves.PutAsync("slot", "{\"level\":2}", new SavePutOptions { IfVersion = first.Version }));

            Assert.IsTrue(conflict.CurrentKnown, "the SDK read the server's copy: there is none");
            Assert.IsNull(conflict.CurrentSave);
            Assert.IsNull(conflict.CurrentJson);
        }
    }
}

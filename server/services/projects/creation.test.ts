import { describe, expect, it } from "vitest";
import { creationRefusal } from "./index";

describe("who may create a project under PROJECT_CREATORS", () => {
  const admin = { isInstanceAdmin: true, canCreateProjects: false };
  const ticked = { isInstanceAdmin: false, canCreateProjects: true };
  const plain = { isInstanceAdmin: false, canCreateProjects: false };

  it("allowed (the default): instance admins and operators an admin ticked", () => {
    expect(creationRefusal("allowed", admin)).toBeNull();
    expect(creationRefusal("allowed", ticked)).toBeNull();
    expect(creationRefusal("allowed", plain)).toBe("Creating projects needs an instance admin's permission: ask one to allow it.");
  });

  it("everyone: every operator", () => {
    expect(creationRefusal("everyone", plain)).toBeNull();
    expect(creationRefusal("everyone", ticked)).toBeNull();
  });

  it("admins: instance admins only, whatever the tick says", () => {
    expect(creationRefusal("admins", admin)).toBeNull();
    expect(creationRefusal("admins", ticked)).toBe("On this instance only instance admins create projects.");
    expect(creationRefusal("admins", plain)).toBe("On this instance only instance admins create projects.");
  });
});

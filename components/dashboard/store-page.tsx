"use client";

import Link from "next/link";
import { StoreProducts } from "./store-products";
import { StoreSettingsCards } from "./store-settings";

/** The project's accounts with the stores, its refund policy and its store products. */
export function StorePage({ projectId }: { projectId: string }) {
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">Stores</h1>
        <Link className="text-sm underline" href={`/projects/${projectId}/purchases`}>
          Purchases
        </Link>
      </div>
      <StoreSettingsCards projectId={projectId} />
      <StoreProducts projectId={projectId} />
    </div>
  );
}

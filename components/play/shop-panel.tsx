"use client";

import type { GameClient } from "@game-backend/client";
import { Coins, FlaskConical, Gem, Sword } from "lucide-react";
import { useState } from "react";
import { plainError } from "./errors";
import { playSound } from "./sound";
import type { Wallet } from "./types";
import { GameButton, Notice, Panel, type Status } from "./ui";

/** What the shop sells: the demo project's purchases (the API has no catalogue for clients, so the game names them). */
const OFFERS = [
  { purchaseId: "buy-potion", itemId: "potion", name: "Potion", price: "10 coins", effect: "Drink one before a round for an extra life." },
  { purchaseId: "buy-sword", itemId: "sword", name: "Sword", price: "50 coins + 1 gem", effect: "Blocks the first bomb of every round." },
] as const;

export const quantityOf = (wallet: Wallet, itemId: string): number => wallet.inventory.find((i) => i.itemId === itemId)?.quantity ?? 0;
export const balanceOf = (wallet: Wallet, currencyId: string): number => wallet.currencies.find((c) => c.id === currencyId)?.balance ?? 0;

/** Applies what a purchase answered (the balances and stacks it touched) to the wallet shown. */
export function afterPurchase(
  wallet: Wallet,
  result: { balances: { id: string; balance: number }[]; inventory: { itemId: string; quantity: number }[] },
): Wallet {
  const currencies = wallet.currencies.map((c) => ({ ...c, balance: result.balances.find((b) => b.id === c.id)?.balance ?? c.balance }));
  const inventory = [...wallet.inventory];
  for (const change of result.inventory) {
    const at = inventory.findIndex((i) => i.itemId === change.itemId);
    const existing = inventory[at];
    if (existing) inventory[at] = { ...existing, quantity: change.quantity };
    else
      inventory.push({
        itemId: change.itemId,
        name: change.itemId.replace(/^./, (c) => c.toUpperCase()),
        quantity: change.quantity,
        updatedAt: new Date().toISOString(),
      });
  }
  return { currencies, inventory: inventory.filter((i) => i.quantity > 0) };
}

const ICONS = { coins: Coins, gems: Gem, potion: FlaskConical, sword: Sword } as Record<string, typeof Coins | undefined>;

export function ShopPanel({
  game,
  wallet,
  loading,
  sound,
  onWallet,
}: {
  game: GameClient;
  wallet: Wallet;
  loading: boolean;
  sound: boolean;
  onWallet: (wallet: Wallet) => void;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>(null);

  const buy = async (offer: (typeof OFFERS)[number]) => {
    setBusy(offer.purchaseId);
    setStatus(null);
    try {
      const result = await game.economy.purchase(offer.purchaseId, { quantity: 1 });
      onWallet(afterPurchase(wallet, result));
      setStatus({ tone: "success", text: `Bought a ${offer.name.toLowerCase()}.` });
      if (sound) playSound("buy");
    } catch (error) {
      setStatus({ tone: "error", text: plainError(error) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <Panel title="Shop">
      {loading ? (
        <p role="status" className="text-sm text-indigo-200">
          Opening your wallet…
        </p>
      ) : (
        <>
          <ul aria-label="Balances" className="flex flex-wrap gap-2">
            {wallet.currencies.map((c) => {
              const Icon = ICONS[c.id] ?? Coins;
              return (
                <li
                  key={c.id}
                  data-testid={`balance-${c.id}`}
                  className="flex items-center gap-1.5 rounded-full bg-white/10 px-3 py-1 text-sm text-white"
                >
                  <Icon className={c.id === "gems" ? "size-4 text-fuchsia-300" : "size-4 text-amber-300"} aria-hidden />
                  <span className="tabular-nums font-semibold">{c.balance}</span>
                  <span className="text-indigo-200">{c.name}</span>
                </li>
              );
            })}
          </ul>
          <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-indigo-200">Your items</h3>
          {wallet.inventory.length === 0 ? (
            <p className="mt-1 text-sm text-indigo-200">Nothing yet: buy something below.</p>
          ) : (
            <ul aria-label="Inventory" className="mt-1 flex flex-wrap gap-2">
              {wallet.inventory.map((item) => {
                const Icon = ICONS[item.itemId] ?? FlaskConical;
                return (
                  <li
                    key={item.itemId}
                    data-testid={`inventory-${item.itemId}`}
                    className="flex items-center gap-1.5 rounded-full bg-white/10 px-3 py-1 text-sm text-white"
                  >
                    <Icon className="size-4 text-emerald-300" aria-hidden />
                    {item.name} <span className="tabular-nums font-semibold">×{item.quantity}</span>
                  </li>
                );
              })}
            </ul>
          )}
          <ul className="mt-4 space-y-2">
            {OFFERS.map((offer) => {
              const Icon = ICONS[offer.itemId] ?? FlaskConical;
              const owned = offer.itemId === "sword" && quantityOf(wallet, "sword") > 0;
              return (
                <li key={offer.purchaseId} className="flex items-center gap-3 rounded-lg bg-indigo-950/60 p-3">
                  <Icon className="size-6 shrink-0 text-amber-300" aria-hidden />
                  <div className="min-w-0 flex-1">
                    <p className="text-sm font-semibold text-white">
                      {offer.name} <span className="font-normal text-amber-200">· {offer.price}</span>
                    </p>
                    <p className="text-xs text-indigo-200">{offer.effect}</p>
                  </div>
                  <GameButton
                    variant="secondary"
                    disabled={busy !== null || owned}
                    aria-label={owned ? `${offer.name}: owned` : `Buy a ${offer.name.toLowerCase()} for ${offer.price}`}
                    onClick={() => buy(offer)}
                  >
                    {owned ? "Owned" : busy === offer.purchaseId ? "Buying…" : "Buy"}
                  </GameButton>
                </li>
              );
            })}
          </ul>
        </>
      )}
      {status && <Notice tone={status.tone}>{status.text}</Notice>}
    </Panel>
  );
}

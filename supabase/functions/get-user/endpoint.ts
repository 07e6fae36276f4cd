import { accountsEndpoints } from "@shared/contract/accounts.ts";
import {
  OwnProfile,
  ProfileApiClient,
  ProfileGameMaster,
  PublicProfile,
  supporterTierName,
} from "@shared/users.ts";
import { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import type { Tx } from "../_shared/db/pool.ts";

type ProfileRow = Omit<z.input<typeof OwnProfile>, "patreon" | "api"> & {
  supporter_tier: number;
  /** Whether the tier is the GAME-MASTER one, the only one that runs a GM group (SQL decides). */
  game_master_tier: boolean;
  gm_access_code: string | null;
};

type ApiClientRow = z.input<typeof ProfileApiClient>;
type VirtualTier = NonNullable<z.input<typeof ProfileGameMaster>["virtual_tier"]>;

export const handler = endpoint(accountsEndpoints, "get-user", {
  run: async ({ body, caller, tx }) => {
    if (caller.kind === "api_key" && (body.id !== undefined || body._id !== undefined)) {
      throw fail("An API key reads only its owner's profile: send {}", {
        field: body.id === undefined ? "_id" : "id",
      });
    }
    if (body.id === undefined && body._id === undefined) {
      // The caller's own row, GM group and API clients, through their owner-only select policies.
      // Under an API key the policies admit the profile row only: the group (its access code) and
      // the clients stay hidden, so the key reads a null code and no clients.
      const selected = tx<ProfileRow[]>`
        select u.id, u.user_id, u.created_at, u.display_name, u.image_url,
               u.background_image_url, u.site_theme, u.summary, u.organized_play_id,
               u.subscribed_content_sources, u.is_admin, u.is_mod, u.is_developer,
               u.is_community_paragon, u.deactivated, u.supporter_tier,
               private.is_game_master(u.supporter_tier) as game_master_tier,
               g.access_code as gm_access_code
        from public.public_user u
        left join public.gm_group g on g.gm_user_id = u.user_id
        where u.user_id = (select auth.uid())`;
      const membership = selectVirtualTier(tx);
      const ownClients = tx<ApiClientRow[]>`
        select id::text as id, name, description, created_at, last_used_at
        from public.api_client c where c.user_id = (select auth.uid()) order by c.id`;
      membership.catch(() => {});
      const [own] = await selected;
      if (!own) throw fail("User not found");
      const { supporter_tier, game_master_tier, gm_access_code, ...profile } = own;
      const virtualTier = await membership;
      // The GM reads their group's code here to share it (more-endpoints §6); a code left from a
      // lapsed GAME-MASTER tier admits nobody, so it is not shown.
      const accessCode = game_master_tier ? gm_access_code : null;
      const gameMaster = game_master_tier || virtualTier
        ? { access_code: accessCode, ...(virtualTier ? { virtual_tier: virtualTier } : {}) }
        : null;
      return {
        ...profile,
        patreon: { tier: supporterTierName(supporter_tier), game_master: gameMaster },
        api: { clients: [...await ownClients] },
      };
    }
    // The profile and the clients its owner has authorized on the caller's characters.
    const userId = typeof body._id === "string" ? body._id : body.id ?? null;
    const profileId = typeof body._id === "number" ? body._id : null;
    const [other] = await tx<(Omit<z.input<typeof PublicProfile>, "patreon" | "api"> & {
      supporter_tier: number;
      clients: ApiClientRow[];
    })[]>`
      select p.id, p.user_id, p.created_at, p.display_name, p.image_url, p.background_image_url,
             p.site_theme, p.summary, p.is_admin, p.is_mod, p.is_developer,
             p.is_community_paragon, p.supporter_tier,
             coalesce((
               select json_agg(json_build_object('id', c.id::text, 'name', c.name,
                                                 'description', c.description) order by c.id)
               from private.clients_granted_to_caller(p.user_id) c
             ), '[]') as clients
      from private.public_profile(${userId}, ${profileId}) p`;
    if (!other) throw fail("User not found");
    const { supporter_tier, clients, ...profile } = other;
    // Parsed here so that nothing beyond the public columns can ever reach the caller.
    return PublicProfile.parse({
      ...profile,
      patreon: { tier: supporterTierName(supporter_tier) },
      api: { clients },
    });
  },
});

/**
 * The caller's membership in a GAME-MASTER's group, in the reference's `virtual_tier` shape, or
 * null. The membership row is the member's to read; the GM's name comes from their public profile.
 * Sent at once, so that it goes in the same write as the statements beside it.
 */
async function selectVirtualTier(tx: Tx): Promise<VirtualTier | null> {
  const [membership] = await tx<VirtualTier[]>`
    select m.gm_user_id as game_master_user_id, m.added_at,
           coalesce((select p.display_name from private.public_profile(m.gm_user_id, null) p), '')
             as game_master_name
    from public.gm_group_member m where m.user_id = (select auth.uid())`;
  return membership ?? null;
}

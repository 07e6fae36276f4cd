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
import { serve } from "../_shared/serve.ts";

type ProfileRow = Omit<z.input<typeof OwnProfile>, "patreon" | "api"> & {
  supporter_tier: number;
  /** Whether the tier is the GAME-MASTER one, the only one that runs a GM group (SQL decides). */
  game_master_tier: boolean;
  gm_access_code: string | null;
};

type ApiClientRow = z.input<typeof ProfileApiClient>;
type VirtualTier = NonNullable<z.input<typeof ProfileGameMaster>["virtual_tier"]>;

serve(endpoint(accountsEndpoints, "get-user", {
  run: async ({ body, tx }) => {
    if (body.id === undefined && body._id === undefined) {
      // The caller's own row and GM group, through their owner-only select policies.
      const [own] = await tx<ProfileRow[]>`
        select u.id, u.user_id, u.created_at, u.display_name, u.image_url,
               u.background_image_url, u.site_theme, u.summary, u.organized_play_id,
               u.subscribed_content_sources, u.is_admin, u.is_mod, u.is_developer,
               u.is_community_paragon, u.deactivated, u.supporter_tier,
               private.is_game_master(u.supporter_tier) as game_master_tier,
               g.access_code as gm_access_code
        from public.public_user u
        left join public.gm_group g on g.gm_user_id = u.user_id
        where u.user_id = (select auth.uid())`;
      if (!own) throw fail("User not found");
      const { supporter_tier, game_master_tier, gm_access_code, ...profile } = own;
      const virtualTier = await selectVirtualTier(tx);
      // The GM reads their group's code here to share it (more-endpoints §6); a code left from a
      // lapsed GAME-MASTER tier admits nobody, so it is not shown.
      const accessCode = game_master_tier ? gm_access_code : null;
      const gameMaster = game_master_tier || virtualTier
        ? { access_code: accessCode, ...(virtualTier ? { virtual_tier: virtualTier } : {}) }
        : null;
      const clients = await tx<ApiClientRow[]>`
        select id::text as id, name, description, created_at, last_used_at
        from public.api_client where user_id = (select auth.uid()) order by id`;
      return {
        ...profile,
        patreon: { tier: supporterTierName(supporter_tier), game_master: gameMaster },
        api: { clients },
      };
    }
    const [other] = await tx<(Omit<z.input<typeof PublicProfile>, "patreon" | "api"> & {
      supporter_tier: number;
    })[]>`
      select id, user_id, created_at, display_name, image_url, background_image_url, site_theme,
             summary, is_admin, is_mod, is_developer, is_community_paragon, supporter_tier
      from private.public_profile(${body.id ?? null}, ${body._id ?? null})`;
    if (!other) throw fail("User not found");
    const { supporter_tier, ...profile } = other;
    const clients = await tx<ApiClientRow[]>`
      select id::text as id, name, description
      from private.clients_granted_to_caller(${profile.user_id}::uuid)`;
    // Parsed here so that nothing beyond the public columns can ever reach the caller.
    return PublicProfile.parse({
      ...profile,
      patreon: { tier: supporterTierName(supporter_tier) },
      api: { clients },
    });
  },
}));

/**
 * The caller's membership in a GAME-MASTER's group, in the reference's `virtual_tier` shape, or
 * null. The membership row is the member's to read; the GM's name comes from their public profile.
 */
async function selectVirtualTier(tx: Tx): Promise<VirtualTier | null> {
  const [membership] = await tx<VirtualTier[]>`
    select m.gm_user_id as game_master_user_id, m.added_at,
           coalesce((select p.display_name from private.public_profile(m.gm_user_id, null) p), '')
             as game_master_name
    from public.gm_group_member m where m.user_id = (select auth.uid())`;
  return membership ?? null;
}

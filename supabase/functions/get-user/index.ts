import { GetUserBody, OwnProfile, PublicProfile, supporterTierName } from "@shared/users.ts";
import { z } from "zod";
import { endpoint } from "../_shared/endpoint.ts";
import { fail } from "../_shared/envelope.ts";
import { serve } from "../_shared/serve.ts";

type ProfileRow = Omit<z.input<typeof OwnProfile>, "patreon"> & { supporter_tier: number };

serve(endpoint({
  summary: "Reads the caller's own profile, or another user's public profile by id or _id",
  auth: ["jwt"],
  body: GetUserBody,
  result: z.union([OwnProfile, PublicProfile]),
  run: async ({ body, tx }) => {
    if (body.id === undefined && body._id === undefined) {
      // The caller's own row, through the owner-only select policy.
      const [own] = await tx<ProfileRow[]>`
        select id, user_id, created_at, display_name, image_url, background_image_url,
               site_theme, summary, organized_play_id, subscribed_content_sources, is_admin,
               is_mod, is_developer, is_community_paragon, deactivated, supporter_tier
        from public.public_user where user_id = (select auth.uid())`;
      if (!own) throw fail("User not found");
      const { supporter_tier, ...profile } = own;
      return { ...profile, patreon: { tier: supporterTierName(supporter_tier) } };
    }
    const [other] = await tx<(Omit<z.input<typeof PublicProfile>, "patreon"> & {
      supporter_tier: number;
    })[]>`
      select id, user_id, created_at, display_name, image_url, background_image_url, site_theme,
             summary, is_admin, is_mod, is_developer, is_community_paragon, supporter_tier
      from private.public_profile(${body.id ?? null}, ${body._id ?? null})`;
    if (!other) throw fail("User not found");
    const { supporter_tier, ...profile } = other;
    // Parsed here so that nothing beyond the public columns can ever reach the caller.
    return PublicProfile.parse({
      ...profile,
      patreon: { tier: supporterTierName(supporter_tier) },
    });
  },
}));

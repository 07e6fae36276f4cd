-- The catalog `deno task schema:compare` dumps, one query per section: each returns one text line
-- per object (`line`). `{schemas}` stands for the schemas the project defines objects in.

-- section: extensions
select e.extname || ' ' || e.extversion || ' in ' || n.nspname as line
from pg_extension e join pg_namespace n on n.oid = e.extnamespace;

-- section: schemas
select n.nspname || ' owner ' || pg_get_userbyid(n.nspowner) as line
from pg_namespace n where n.nspname in {schemas};

-- section: types
select t.oid::regtype::text || ' enum (' ||
  (select string_agg(e.enumlabel, ', ' order by e.enumsortorder) from pg_enum e
   where e.enumtypid = t.oid) || ')' as line
from pg_type t join pg_namespace n on n.oid = t.typnamespace
where t.typtype = 'e' and n.nspname in {schemas};

-- section: relations
select c.oid::regclass::text || ' kind ' || c.relkind::text || ' owner ' ||
  pg_get_userbyid(c.relowner) || ' rls ' || c.relrowsecurity || ' force ' ||
  c.relforcerowsecurity as line
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname in {schemas} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
  and not exists (select from pg_depend d where d.objid = c.oid and d.deptype = 'e');

-- section: columns
select c.oid::regclass::text || ' ' || a.attname || ' ' ||
  format_type(a.atttypid, a.atttypmod) || case when a.attnotnull then ' not null' else '' end ||
  coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') ||
  case when a.attidentity <> '' then ' identity ' || a.attidentity::text else '' end ||
  case when a.attgenerated <> '' then ' generated ' || a.attgenerated::text else '' end ||
  coalesce(' collate ' || nullif(a.attcollation, 0)::regcollation::text, '') as line
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where n.nspname in {schemas} and c.relkind in ('r', 'p', 'v', 'm', 'f')
  and a.attnum > 0 and not a.attisdropped;

-- section: constraints
select coalesce(nullif(c.conrelid, 0)::regclass::text, c.contypid::regtype::text) || ' ' ||
  c.conname || ': ' || pg_get_constraintdef(c.oid) as line
from pg_constraint c join pg_namespace n on n.oid = c.connamespace
where n.nspname in {schemas};

-- section: indexes
select i.schemaname || '.' || i.tablename || ' ' || i.indexdef as line
from pg_indexes i where i.schemaname in {schemas};

-- section: triggers
select t.tgrelid::regclass::text || ' ' || pg_get_triggerdef(t.oid) || ' enabled ' ||
  t.tgenabled::text as line
from pg_trigger t where not t.tgisinternal;

-- section: policies
select p.schemaname || '.' || p.tablename || ' "' || p.policyname || '" ' || p.permissive ||
  ' ' || p.cmd || ' to ' || array_to_string(p.roles, ',') || ' using (' ||
  coalesce(p.qual, '') || ') check (' || coalesce(p.with_check, '') || ')' as line
from pg_policies p;

-- section: functions
select p.oid::regprocedure::text || ' returns ' || pg_get_function_result(p.oid) ||
  ' language ' || l.lanname || ' ' ||
  case p.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end ||
  case when p.prosecdef then ' security definer' else '' end ||
  case when p.proleakproof then ' leakproof' else '' end ||
  case when p.proisstrict then ' strict' else '' end ||
  ' parallel ' || p.proparallel::text || ' cost ' || p.procost || ' rows ' || p.prorows ||
  ' owner ' || pg_get_userbyid(p.proowner) ||
  coalesce(' set ' || array_to_string(p.proconfig, ', '), '') ||
  ' body: ' || regexp_replace(btrim(p.prosrc), '\s+', ' ', 'g') as line
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_language l on l.oid = p.prolang
where n.nspname in {schemas}
  and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e');

-- section: table privileges
select c.oid::regclass::text || ' ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') ||
  ' ' || x.privilege_type || case when x.is_grantable then ' with grant option' else '' end
  as line
from pg_class c join pg_namespace n on n.oid = c.relnamespace,
  aclexplode(coalesce(c.relacl, acldefault(
    case when c.relkind = 'S' then 's' else 'r' end::"char", c.relowner))) x
where n.nspname in {schemas} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f');

-- section: column privileges
select c.oid::regclass::text || '.' || a.attname || ' ' ||
  coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' || x.privilege_type as line
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace,
  aclexplode(a.attacl) x
where n.nspname in {schemas} and a.attacl is not null and not a.attisdropped;

-- section: function privileges
select p.oid::regprocedure::text || ' ' ||
  coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' || x.privilege_type as line
from pg_proc p join pg_namespace n on n.oid = p.pronamespace,
  aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) x
where n.nspname in {schemas};

-- section: schema privileges
select n.nspname || ' ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' ||
  x.privilege_type as line
from pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) x
where n.nspname in {schemas};

-- section: default privileges
select pg_get_userbyid(d.defaclrole) || ' in ' ||
  coalesce(nullif(d.defaclnamespace, 0)::regnamespace::text, 'all schemas') || ' on ' ||
  d.defaclobjtype::text || ': ' || coalesce(pg_get_userbyid(nullif(x.grantee, 0)), 'PUBLIC') || ' ' ||
  x.privilege_type as line
from pg_default_acl d, aclexplode(d.defaclacl) x;

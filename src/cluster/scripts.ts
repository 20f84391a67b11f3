// Lua run inside Redis, so that each step below is one round trip and no other instance sees it half done.
// Owner values are "<instance>|<epoch>"; epochs come from Redis's clock (microseconds), so they keep growing
// across a Redis restart on the same machine, and a new claim is always above the one it replaces.

/**
 * One refresh of an instance: claims and refreshes its targets, releases the ones it lost, rewrites its listing
 * hash, its own record and its place in the instance set, all with the TTL.
 * KEYS: instance key, targets hash, instance set, then the owner keys of the claims, then of the releases.
 * ARGV: instance id, TTL ms, instance info, claim count, release count, one epoch per claim ("0": a new target),
 * then the listing hash's field/value pairs.
 * Returns one {epoch, other} per claim: epoch "0" means a newer owner fenced this one off; `other` is the
 * instance a new claim took the target from ("" when none).
 */
export const SYNC_SCRIPT = `
local me, ttl = ARGV[1], tonumber(ARGV[2])
local claims, releases = tonumber(ARGV[4]), tonumber(ARGV[5])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local results = {}
for i = 1, claims do
  local key, mine = KEYS[3 + i], tonumber(ARGV[5 + i])
  local current = redis.call('GET', key)
  local owner, epoch = '', 0
  if current then
    local bar = string.find(current, '|', 1, true)
    owner, epoch = string.sub(current, 1, bar - 1), tonumber(string.sub(current, bar + 1))
  end
  if mine == 0 then
    local fresh = string.format('%.0f', math.max(now, epoch + 1))
    redis.call('SET', key, me .. '|' .. fresh, 'PX', ttl)
    results[i] = {fresh, owner ~= me and owner or ''}
  elseif owner ~= '' and owner ~= me and epoch > mine then
    results[i] = {'0', owner}
  else
    redis.call('SET', key, me .. '|' .. ARGV[5 + i], 'PX', ttl)
    results[i] = {ARGV[5 + i], ''}
  end
end
for i = 1, releases do
  local key = KEYS[3 + claims + i]
  local current = redis.call('GET', key)
  if current and string.sub(current, 1, #me + 1) == me .. '|' then redis.call('DEL', key) end
end
redis.call('DEL', KEYS[2])
local first, last = 6 + claims, #ARGV
while first < last do
  local upto = math.min(first + 999, last)
  redis.call('HSET', KEYS[2], unpack(ARGV, first, upto))
  first = upto + 1
end
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
redis.call('ZADD', KEYS[3], math.floor(now / 1000) + ttl, me)
return results
`;

/**
 * Finds a target's owner and, when it is another instance, publishes the call to its channel.
 * KEYS: the owner keys, the first one held deciding. ARGV: this instance's id, the channel prefix, the message.
 * Returns {owner, receivers}: owner "" when no instance holds the target; receivers 0 when the owner is this
 * instance (nothing was sent) or no longer listens (it died).
 */
export const SEND_TO_OWNER_SCRIPT = `
local current = false
for i = 1, #KEYS do
  current = redis.call('GET', KEYS[i])
  if current then break end
end
if not current then return {'', 0} end
local owner = string.sub(current, 1, string.find(current, '|', 1, true) - 1)
if owner == ARGV[1] then return {owner, 0} end
return {owner, redis.call('PUBLISH', ARGV[2] .. owner, ARGV[3])}
`;

/**
 * The other live instances' listings. KEYS: the instance set. ARGV: this instance's id, the targets hash prefix.
 * Returns {id, ms left, {field, value, ...}} per instance; drops instances whose records expired.
 */
export const READ_OTHERS_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if id ~= ARGV[1] then
    local key = ARGV[2] .. id
    local left = redis.call('PTTL', key)
    if left > 0 then table.insert(out, {id, left, redis.call('HGETALL', key)}) end
  end
end
return out
`;

/**
 * A graceful stop: releases the instance's targets (those it still owns) and removes its records.
 * KEYS: instance key, targets hash, instance set, then the owner keys. ARGV: this instance's id.
 */
export const LEAVE_SCRIPT = `
local me = ARGV[1]
for i = 4, #KEYS do
  local current = redis.call('GET', KEYS[i])
  if current and string.sub(current, 1, #me + 1) == me .. '|' then redis.call('DEL', KEYS[i]) end
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], me)
return 1
`;

/**
 * Claims a target only when no instance holds it (a persistent client whose instance is gone), with an epoch above
 * any before it. KEYS: the owner key. ARGV: this instance's id, TTL ms.
 * Returns the epoch this instance holds it under, or "0" when another instance holds it.
 */
export const CLAIM_IF_FREE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local bar = string.find(current, '|', 1, true)
  if string.sub(current, 1, bar - 1) == ARGV[1] then return string.sub(current, bar + 1) end
  return '0'
end
local time = redis.call('TIME')
local epoch = string.format('%.0f', tonumber(time[1]) * 1000000 + tonumber(time[2]))
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. epoch, 'PX', tonumber(ARGV[2]))
return epoch
`;

/**
 * Writes a persistent client's state only while this instance holds its claim, so an instance fenced off never
 * overwrites what the one that took the client over saved, and only while the client is still persistent: a client
 * made not persistent through another instance has a tombstone, and a write that makes it persistent again removes it.
 * KEYS: the owner key, the state key, the persisted set, the tombstone. ARGV: this instance's id, the client id, the
 * sealed state, "1" when this write makes the client persistent.
 * Returns 1 when written, 0 when another instance holds the client, 2 when the client is no longer persistent.
 */
export const WRITE_STATE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1] + 1) ~= ARGV[1] .. '|' then return 0 end
if ARGV[4] == '1' then redis.call('DEL', KEYS[4]) elseif redis.call('EXISTS', KEYS[4]) == 1 then return 2 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
`;

/**
 * Makes a client not persistent: its state and its place in the set go, and a tombstone tells the instance that
 * keeps it (at its next save). KEYS: the state key, the persisted set, the tombstone. ARGV: the client id, its TTL ms.
 */
export const REMOVE_STATE_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[2]))
return 1
`;

/**
 * The persistent clients no live instance holds. KEYS: the persisted set. ARGV: the owner key prefix of client claims.
 */
export const ORPHANS_SCRIPT = `
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then table.insert(out, id) end
end
return out
`;

/** Releases one claim if this instance still holds it. KEYS: the owner key. ARGV: this instance's id. */
export const RELEASE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('DEL', KEYS[1]) end
return 1
`;

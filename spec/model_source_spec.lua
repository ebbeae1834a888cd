-- Where a model's config comes from (lua/nd/model/source.lua): a local
-- directory, the Hugging Face cache, the built-in catalog, config_overrides;
-- and what the model section lays over it (model-spec-census-train-yaml.md §a.3 _explicit_overrides,
-- §a.5, §e.1). The HF caches here are fakes built in a temp directory with
-- the layout huggingface_hub writes: models--ORG--NAME/refs/<rev> holding a
-- commit hash, snapshots/<hash>/config.json.
local model_source = require "nd.model.source"
local catalog = require "nd.catalog"
local core = require "nd.core"
local warnings = require "nd.warnings"

local function tempdir()
  local p = assert(io.popen("mktemp -d"))
  local dir = p:read("l")
  p:close()
  return dir
end

local function write(path, text)
  os.execute("mkdir -p '" .. path:match("^(.*)/[^/]*$") .. "'")
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function config_text(hidden, model_type)
  return string.format('{"model_type": "%s", "hidden_size": %d, "num_hidden_layers": 2, '
    .. '"num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 64}', model_type or "llama", hidden)
end

-- A getenv reading only `env` (so the real HF_HOME never leaks in).
local function env_of(env)
  return function(name) return env[name] end
end

-- A fake hub cache under `root`: repo id -> { [revision] = {hash, hidden, subfolder} }.
local function fake_cache(root, id, revisions)
  local repo = root .. "/models--" .. id:gsub("/", "--")
  for rev, snap in pairs(revisions) do
    write(repo .. "/refs/" .. rev, snap.hash .. "\n")
    local dir = repo .. "/snapshots/" .. snap.hash .. (snap.subfolder and ("/" .. snap.subfolder) or "")
    write(dir .. "/config.json", config_text(snap.hidden))
  end
  return repo
end

local function refused(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected a refusal")
  assert.is_true(type(err) == "table" and err.bad_input == true, "not a bad-input error: " .. tostring(err))
  return err.message
end

describe("nd.model.source", function()
  local tmp
  before_each(function() tmp = tempdir() end)
  after_each(function() os.execute("rm -rf '" .. tmp .. "'") end)

  describe("a local directory", function()
    it("reads DIR/config.json", function()
      write(tmp .. "/ckpt/config.json", config_text(32))
      local r = model_source.resolve({ pretrained_model_name_or_path = tmp .. "/ckpt" }, { getenv = env_of {} })
      assert.are.equal("directory", r.source.kind)
      assert.are.equal(tmp .. "/ckpt/config.json", r.source.path)
      assert.are.equal(32, r.config.hidden_size)
    end)

    it("honours model.subfolder and model.config_path, and takes a .json file itself", function()
      write(tmp .. "/ckpt/text/config.json", config_text(48))
      local r = model_source.resolve({ config_path = tmp .. "/ckpt", subfolder = "text" }, { getenv = env_of {} })
      assert.are.equal(48, r.config.hidden_size)
      write(tmp .. "/my.json", config_text(24))
      assert.are.equal(24, model_source.resolve(tmp .. "/my.json", { getenv = env_of {} }).config.hidden_size)
    end)
  end)

  describe("the Hugging Face cache", function()
    it("follows refs/main to its snapshot under $HF_HUB_CACHE", function()
      fake_cache(tmp .. "/hub", "acme/tiny", { main = { hash = "abc123", hidden = 16 } })
      local r = model_source.resolve("acme/tiny", { getenv = env_of { HF_HUB_CACHE = tmp .. "/hub" } })
      assert.are.equal("hf_cache", r.source.kind)
      assert.are.equal("abc123", r.source.snapshot)
      assert.are.equal("main", r.source.revision)
      assert.are.equal(tmp .. "/hub/models--acme--tiny/snapshots/abc123/config.json", r.source.path)
      assert.are.equal(16, r.config.hidden_size)
    end)

    it("honours model.revision, by ref name or snapshot name", function()
      fake_cache(tmp .. "/hub", "acme/tiny", { main = { hash = "abc123", hidden = 16 },
                                               v2 = { hash = "def456", hidden = 20 } })
      local getenv = env_of { HF_HUB_CACHE = tmp .. "/hub" }
      local r = model_source.resolve({ pretrained_model_name_or_path = "acme/tiny", revision = "v2" }, { getenv = getenv })
      assert.are.equal(20, r.config.hidden_size)
      assert.are.equal("def456", r.source.snapshot)
      r = model_source.resolve({ pretrained_model_name_or_path = "acme/tiny", revision = "abc123" }, { getenv = getenv })
      assert.are.equal(16, r.config.hidden_size)
    end)

    it("honours model.subfolder inside the snapshot", function()
      fake_cache(tmp .. "/hub", "acme/vl", { main = { hash = "f00", hidden = 40, subfolder = "llm" } })
      local r = model_source.resolve({ pretrained_model_name_or_path = "acme/vl", subfolder = "llm" },
                                     { getenv = env_of { HF_HUB_CACHE = tmp .. "/hub" } })
      assert.are.equal(40, r.config.hidden_size)
    end)

    it("finds the cache from model.cache_dir, $HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub in turn", function()
      fake_cache(tmp .. "/a", "acme/tiny", { main = { hash = "h1", hidden = 8 } })
      fake_cache(tmp .. "/b", "acme/tiny", { main = { hash = "h2", hidden = 12 } })
      fake_cache(tmp .. "/home/hub", "acme/tiny", { main = { hash = "h3", hidden = 16 } })
      fake_cache(tmp .. "/.cache/huggingface/hub", "acme/tiny", { main = { hash = "h4", hidden = 20 } })
      local env = { HF_HUB_CACHE = tmp .. "/b", HF_HOME = tmp .. "/home", HOME = tmp }
      local function hidden(section)
        return model_source.resolve(section, { getenv = env_of(env) }).config.hidden_size
      end
      assert.are.equal(8, hidden { pretrained_model_name_or_path = "acme/tiny", cache_dir = tmp .. "/a" })
      assert.are.equal(12, hidden "acme/tiny")
      env.HF_HUB_CACHE = nil
      assert.are.equal(16, hidden "acme/tiny")
      env.HF_HOME = nil
      assert.are.equal(20, hidden "acme/tiny")
    end)
  end)

  describe("resolution order", function()
    it("HF cache, then catalog", function()
      local id = "Qwen/Qwen3-8B"
      -- the catalog alone: hidden_size 4096 ("hidden_size": 4096 in its config.json)
      local r = model_source.resolve(id, { getenv = env_of { HOME = tmp } })
      assert.are.equal("catalog", r.source.kind)
      assert.are.equal(catalog.path(id), r.source.path)
      assert.are.equal(4096, r.config.hidden_size)
      -- a cached snapshot of the same id wins over the catalog
      fake_cache(tmp .. "/.cache/huggingface/hub", id, { main = { hash = "c0ffee", hidden = 64 } })
      r = model_source.resolve(id, { getenv = env_of { HOME = tmp } })
      assert.are.equal("hf_cache", r.source.kind)
      assert.are.equal(64, r.config.hidden_size)
      -- a local directory wins over both: spec/cli/verify.t (it needs its own working directory)
    end)

    it("uses config_overrides alone when no path is stated", function()
      local r = model_source.resolve({ name = "mine", config_overrides = { hidden_size = 8, num_hidden_layers = 1 } },
                                     { getenv = env_of {} })
      assert.is_nil(r.config)
      assert.are.equal("overrides", r.source.kind)
      assert.are.equal("mine", r.name)                 -- model.name names the overrides' model
      assert.are.equal(8, r.overrides.hidden_size)
    end)

    it("falls back to config_overrides with a warning when the path resolves nowhere", function()
      local w = warnings.quiet()
      local r = model_source.resolve({ pretrained_model_name_or_path = tmp .. "/none",
                                       config_overrides = { hidden_size = 8 } }, { getenv = env_of {}, warnings = w })
      assert.are.equal("overrides", r.source.kind)
      assert.matches("falling back to model.config_overrides", w:all()[1], 1, true)
    end)

    it("lists every place tried, how to fix it, and the closest catalog ids", function()
      local section = core.yaml.decode("model:\n  pretrained_model_name_or_path: Qwen/Qwen3-31B\n", "train.yaml").model
      local msg = refused(model_source.resolve, section, { getenv = env_of { HF_HUB_CACHE = tmp .. "/hub" } })
      assert.matches("train.yaml:2:34: model.pretrained_model_name_or_path: cannot find the config.json of 'Qwen/Qwen3-31B'",
                     msg, 1, true)
      assert.matches("Qwen/Qwen3-31B/config.json  (a local checkpoint directory)", msg, 1, true)
      assert.matches(tmp .. "/hub/models--Qwen--Qwen3-31B/refs/main  (the Hugging Face cache, from $HF_HUB_CACHE)",
                     msg, 1, true)
      assert.matches("the built-in catalog (no id 'Qwen/Qwen3-31B')", msg, 1, true)
      assert.matches("closest catalog ids: Qwen/Qwen3-32B", msg, 1, true)
      assert.matches("put the checkpoint directory (holding config.json) at that path", msg, 1, true)
      assert.matches("state the model's fields under model.config_overrides", msg, 1, true)
    end)

    it("refuses a section that names no model, and one whose overrides state only a dtype", function()
      local msg = refused(model_source.resolve, {}, { getenv = env_of {} })
      assert.matches("states no pretrained_model_name_or_path, config_path or config_overrides", msg, 1, true)
      refused(model_source.resolve, { config_overrides = { torch_dtype = "bfloat16" } }, { getenv = env_of {} })
      refused(model_source.resolve, { pretrained_model_name_or_path = 12 }, { getenv = env_of {} })
    end)
  end)

  describe("what the model section lays over the config", function()
    it("config_overrides win over direct fields, which win over the checkpoint", function()
      write(tmp .. "/ckpt/config.json", config_text(32))
      local spec = model_source.resolve_model({
        pretrained_model_name_or_path = tmp .. "/ckpt",
        num_hidden_layers = 6,                      -- a factory argument: over the checkpoint's 2
        vocab_size = 200,                           -- overridden again below
        torch_dtype = "auto",                       -- "auto" states nothing
        config_overrides = { vocab_size = 300, arch = "qwen" },
      }, { getenv = env_of {}, warnings = warnings.quiet() })
      assert.are.equal(32, spec.hidden_size)      -- the checkpoint's
      assert.are.equal(6, spec.num_hidden_layers)
      assert.are.equal(300, spec.vocab_size)
      assert.are.equal("qwen", spec.arch)
      assert.is_nil(spec.torch_dtype)
      assert.are.equal("llama", spec.name)        -- model_type; model.name only names an overrides model
    end)

    it("returns the run keys apart", function()
      local _, source, run = model_source.resolve_model({
        offset = { 1, 0 },
        config_overrides = { hidden_size = 8, num_hidden_layers = 2, num_attention_heads = 2, vocab_size = 10,
                             intermediate_size = 16, full_rec = true, capacity_factor = 1.5, seq_length = 2048 },
      }, { getenv = env_of {}, warnings = warnings.quiet() })
      assert.are.equal("overrides", source.kind)
      assert.are.same({ offset = { 1, 0 }, full_rec = true, capacity_factor = 1.5, seq_length = 2048 }, run)
    end)

    it("refuses an unknown config_overrides key by name and place", function()
      local section = core.yaml.decode("model:\n  config_overrides:\n    hidden: 8\n", "train.yaml").model
      local msg = refused(model_source.resolve, section, { getenv = env_of {} })
      assert.matches("train.yaml:3:13: model.config_overrides.hidden: unknown model spec key 'hidden'", msg, 1, true)
    end)

    it("settles a catalog model with overrides laid over it", function()
      local spec, source = model_source.resolve_model({ pretrained_model_name_or_path = "deepseek-ai/DeepSeek-V3",
                                                        config_overrides = { mtp_depth = 0 } },
                                                      { getenv = env_of {}, warnings = warnings.quiet() })
      assert.are.equal("catalog", source.kind)
      assert.are.equal("deepseek-ai/DeepSeek-V3", source.id)
      assert.are.equal(2, #spec.layers)           -- 3 dense + 58 moe, the MTP layer overridden away
    end)
  end)
end)

# frozen_string_literal: true

# Replays an 18xx.games export through the 18xx.games engine of a local checkout, one action at a
# time as live play does, and prints the engine's state after each action in the trace format of
# companion.interop.replay (one JSON object a line).  Run by tools/oracle_run.py:
#
#   ruby tools/oracle/trace.rb CHECKOUT EXPORT.json [live|recorded]
#
# CHECKOUT is the owner's own checkout of tobymao/18xx (its lib/ is loaded; nothing of it is part
# of this repository).  The game is created with no actions and strict: true (every action checked
# as in a live game), then each action of the export is handed to process_action:
# * live: without its auto_actions, which the engine makes itself (add_auto_actions), as when a
#   player acts on the site; the automatic actions it made are written with the state;
# * recorded: with the export's auto_actions, checked against the ones the engine makes
#   (validate_auto_actions), as when the site loads an export and goes on.
# A run's routes are handed over without their revenue, so the engine checks each route and values it
# itself (with it, the engine takes the route as it is).
# undo and redo give a new game (as on the site), which goes on.  A refused action ends the trace with
# {"refused": id, "error": message, "stuck": whether the engine then has no action for anyone it waits for}.
require 'json'

checkout, export_path, mode = ARGV
mode ||= 'recorded'
$LOAD_PATH.unshift(File.join(checkout, 'lib'))
ENV['ENGINE_LOG_LEVEL'] ||= '4' # the engine logs to standard output: errors only
require 'engine'

def trace_state(game, action)
  {
    'id' => action['id'],
    'type' => action['type'],
    'round' => game.round.name.sub(/ Round\z/, ''),
    'turn' => game.turn,
    'phase' => game.phase.name,
    'bank' => game.bank.cash,
    'players' => game.players.to_h { |p| [p.id.to_s, p.cash] },
    'corporations' => game.corporations.select(&:ipoed).to_h do |c|
      [c.id, { 'cash' => c.cash, 'share_price' => c.share_price&.price, 'trains' => c.trains.map(&:name) }]
    end,
  }
end

# Whether no one the round waits for may act (looked up by id, as an action names them): the
# engine is stuck there, whatever action comes next.
def stuck?(game)
  game.round.active_entities.none? do |entity|
    entity = game.player_by_id(entity.id) if entity.player?
    entity = game.corporation_by_id(entity.id) if entity.corporation?
    !(game.round.actions_for(entity) - %w[end_game message]).empty?
  end
rescue StandardError
  false
end

data = JSON.parse(File.read(export_path))
actions = data['actions']
game = Engine::Game.load(data, actions: [], strict: true)
actions.each do |raw|
  action = raw.dup
  if action['type'] == 'run_routes'
    # a route handed over with its revenue is taken as it is; without it the engine checks the route
    # (connected, no offboard passed through, one hex of an offboard group ...) and values it itself
    action['routes'] = (action['routes'] || []).map { |r| r.except('revenue', 'revenue_str') }
  end
  case mode
  when 'live'
    action.delete('auto_actions')
    game = game.process_action(action, add_auto_actions: true)
  else
    game = game.process_action(action, validate_auto_actions: true)
  end
  if game.exception
    puts JSON.generate('refused' => raw['id'], 'type' => raw['type'], 'error' => game.exception.message,
                       'stuck' => stuck?(game))
    break
  end
  entry = trace_state(game, raw)
  if mode == 'live'
    made = game.raw_actions.last&.dig('auto_actions')
    entry['auto_actions'] = made.map { |a| a.except('created_at', 'id') } if made && !made.empty?
  end
  puts JSON.generate(entry)
end
if game.finished && !game.exception
  puts JSON.generate('result' => game.result.transform_keys(&:to_s), 'game_end_reason' => game.game_end_reason.to_s)
end

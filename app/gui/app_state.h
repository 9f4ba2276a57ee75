#pragma once
// Everything the GUI shows and edits lives in these structs (no function-local statics): the panels
// read and write them, the main loop acts on the requests they leave (rebuild, step, record, ...).
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gui/core/layout.h"
#include "gui/core/scene_settings.h"
#include "gui/core/sim_runner.h"
#include "render/camera.h"
#include "render/renderer.h"

namespace vbdgui {

// One simulated World and what is shown of it. Side-by-side mode runs two of these in lockstep.
struct Lab {
    std::string label = "left";
    SceneSettings scene;  // file + settings in the --set language
    // The settings of the World the lab runs, as of its last build (a refused rebuild goes back to them).
    SceneSettings builtScene;
    bool builtSceneValid = false;
    // Boxes thrown from the camera into this scene (in desc too): a settings edit resolves desc anew from the
    // scene's settings and adds them again, so that both sides of a side-by-side run keep theirs.
    std::vector<vbd::RigidBodyDesc> thrown;
    // Thrown while a rebuild of this lab was in flight: that World is built from a description without them,
    // and its install clears the commands queued before it; added once its answer is seen (handleEvent).
    std::vector<vbd::RigidBodyDesc> throwAfterBuild;
    vbd::SceneDesc desc;  // what the World is built from: scene resolved, panel edits applied
    std::shared_ptr<WorldSnapshot> world;  // the latest snapshot published by the simulation thread
    std::unique_ptr<SceneGpu> gpu;
    // The window's interop with the simulation thread (gui/core/interop_slots.h), when gpu has a writer.
    std::shared_ptr<WindowVertexLink> link;
    bool drewFromSlot = false;  // the last window frame drew its vertices from an interop slot (status line)
    std::uint64_t gpuGeneration = 0;  // generation of the World the GPU buffers were made for
    std::string gpuBackend;           // its backendLine() then (a new backend may allow or end the interop)
    std::string vertexLine;           // last vertex-buffer line printed
    DrawOptions draw;
    std::deque<std::vector<vbd::IterationRecord>> recent;  // last frames' convergence, newest last
    std::string note;                                      // e.g. "preview world"
    enum class Rebuild { None, Carry, Restart } rebuild = Rebuild::None;
    bool solverDirty = false;  // setSolver at the next step
    double stepMs = 0;         // wall time of the last World::step
    int shownFrame = -1;       // frame of the snapshot last drawn
    FieldRange range;          // the heat map's range as measured this frame (before sharing)
    FieldRange legend;  // the range this frame is drawn with (after sharing, a fixed range): the legend's
};

struct PickState {
    bool active = false;
    int lab = 0;
    int particle = -1, body = -1;
    glm::vec3 grabLocal{0};  // body-frame grab point
    glm::vec3 anchor{0};     // world point grabbed
    glm::vec3 target{0};     // where the spring pulls
    float depth = 0;         // grab distance along the view ray
    float stiffness = 2e3f;  // N/m
};

// The vertex under the mouse (hover value of the heat map).
struct HoverState {
    int lab = -1, particle = -1;
    float value = 0;
    bool hasValue = false;
};

enum class Capture { Window, View };
enum class VideoFormat { Auto, Png, Mp4 };

struct RecordSettings {
    int every = 1;   // one image per `every` simulation frames
    double fps = 0;  // output frame rate; 0 = real time (1 / (dt * every))
    Capture capture = Capture::Window;
    int width = 0, height = 0;  // view capture size; 0 = the view's size in the window
    VideoFormat format = VideoFormat::Auto;
    std::string dir = "recording";  // takes go into dir/take_NNN/
};

struct RecordState {
    RecordSettings settings;
    bool on = false;             // a take is running
    bool toggleRequest = false;  // V / the button
    bool reveal = false;         // a take started or ended: open the Recording section to show it
    int ffmpeg = -1;             // ffmpeg on PATH: -1 not checked yet, 0 no, 1 yes
    std::string takeDir;         // absolute path of the running or last take
    int nextFrame = -1;          // simulation frame of the next image
    int written = 0;             // images of the take so far
    int firstFrame = -1, lastFrame = -1;
    bool mp4 = false;  // this take pipes into ffmpeg
    FILE* pipe = nullptr;
    uint32_t firstWidth = 0, firstHeight = 0;  // an MP4 keeps its first frame's size
    // A lab's area's aspect (width over height) in the 3D view when the take started. A take of the view at
    // a chosen size frames what an area of this aspect frames, so that resizing the window mid-take leaves
    // the take's zoom alone (measured against the resized view, a 1280x720 window narrowed to 800x900
    // zoomed the take's cube in by a third). Per lab: side by side turned off mid-take (which does not
    // restart the run) kept the two sides' aspect for the one view's area.
    float viewAspect = 0;
    std::string status;
    std::string scene;  // the scene file and time step the take started on (take.json)
    double dt = 0;
    // A World rebuilt (a load, reset, edit or side by side) or a timeline frame restored while recording: the
    // simulation is held at its frame until that is applied, so that a run that restarts is recorded from
    // its first frame. restarted: a World came that did not carry the state over (a new run).
    std::uint64_t awaitTicket = 0;
    bool restarted = false, restoring = false;  // restoring: the awaited ticket restores a timeline frame
    void await(std::uint64_t ticket, bool restore) {
        awaitTicket = ticket;
        restoring = restore;
    }
};

struct TimelineState {
    bool playing = true;
    double speed = 1;            // x real time; 0 = as fast as the solver goes
    int stepRequests = 0;        // single steps
    bool resetRequest = false;   // R: both labs back to frame 0 of the current settings
    int restoreRequest = -1;     // frame to go back to (the scrubber)
    bool replayRequest = false;  // back to the oldest frame held, then play
    int historyMB = 512;         // memory budget of the history
    bool budgetDirty = false;
    TimelineInfo info;    // as last reported by the simulation thread
    double realTime = 0;  // simulated / wall seconds while playing (0: unknown)
};

struct Timing {
    double simMs = 0, uploadMs = 0, renderMs = 0, frameMs = 0, fps = 0;
    double simHostMs = 0;  // of simMs, outside the solvers (SimRunner::lastHostMs)
};

struct EllipseState {
    float kappa = 100, angleDeg = 30;
    int sweeps = 10;
    bool show[4] = {true, true, true, true};  // bcd, cg, eigen, local
    bool pair = false;                        // the seed's "same kappa = 25, different BCD experience" pair
    bool nd = false;                          // random n-D block system (convergence curves)
    int ndBlocks = 8, ndSeed = 1;
    float ndCoupling = 0.6f, ndKappa = 1000;
    // n-D cache: recomputed when ndKey changes
    std::string ndKey, ndError;
    std::vector<float> ndCurves[4];
    double ndRho = 0, ndKappaActual = 1;
};

// Which sections of the plots column are open; `apply` makes the next frame open or close them (an
// action asked), after which the user's clicks rule.
struct PlotSections {
    bool convergence = true, perFrame = true, timing = true, ellipse = true;
    bool apply = false;
};

// What a lesson step points at in the 3D view (the `mark` action): a vertex (ringed, follows it), a
// box (its 12 edges, in world space) or an arrow, each with an optional label.
struct Mark {
    enum class Kind { Vertex, Region, Arrow } kind = Kind::Vertex;
    int vertex = -1;
    glm::vec3 a{0}, b{0};  // region min / max, or arrow from / to
    std::string text;
    int lab = -1;  // the view it is drawn in (-1: both)
};

// The per-frame plot under the residual plot (the `plot` action).
enum class PerFramePlot { EnergyG, TotalEnergy, ComY, Kinetic };

// The lesson being taught, as the Lessons panel shows it; the panel leaves its requests here and the
// lesson player (lesson_player.cpp) acts on them.
struct LessonView {
    bool active = false;
    std::string name, title;
    struct Step {
        std::string title, text, look;
    };
    std::vector<Step> steps;
    int current = -1;                    // step shown
    bool running = false;                // its actions are still being carried out
    bool autoplay = false;               // --autoplay: steps follow each other, then the app exits
    int goTo = -1;                       // request: run this step (Next, Prev, Re-run)
    bool close = false;                  // request: leave the lesson (the scene stays)
    std::vector<std::string> available;  // lesson folders for the picker
    int pick = 0;
    std::string openRequest;  // request: open this lesson folder
    std::string error;        // a lesson that could not be opened
};

struct AppState {
    std::vector<std::string> sceneFiles;
    int sceneIndex = -1;     // into sceneFiles; -1 = built-in or --scene outside assets/
    std::string scenePath;   // "" = built-in default
    std::string sceneError;  // last failed load or edit (shown until the next successful one)
    // What failed, before the message on the panel: "scene error" (a load or rebuild refused), "setting
    // refused" (a solver edit the World kept its value for), "step failed" (the simulation paused). A refused
    // `set solver.backend=cuda` was shown as a scene error.
    std::string sceneErrorLabel = "scene error";
    Lab labs[2];
    bool compare = false;         // side-by-side: labs[1] runs the same scene with its own settings
    bool compareRequest = false;  // the checkbox changed compare: restart both sides
    bool sharedScale = true;      // side by side: one colour scale for both views
    bool sharedScaleOn = false;   // this frame both views use it (same field, automatic ranges)
    TimelineState timeline;
    bool loadRequest = false;  // scene picker / reload: load loadPath ("" = built-in demo) at the next frame
    std::string loadPath;
    OrbitCamera camera;
    bool frameRequest = true;
    // The framing asked for frames the World's first state (a load, the start, side by side turned on), not
    // the current one (F, an action's camera frame): a run's camera then does not depend on how far the
    // simulation had got when the UI first saw the new World.
    bool frameInitialState = true;
    // The last framing's box and the overlay's insets it fitted into (pixels). The framing after start-up or
    // a load comes before any overlay of that scene has measured its insets (the first view of a scene sat
    // ~30 px off the one F gave): until an overlay confirms them, and while the camera is as the framing
    // left it, the next frames fit the same box again into the insets measured. Actions, takes and
    // screenshots wait for it (GuiApp::settling).
    struct Framing {
        int framesLeft = 0;      // refits left (a bound: insets that never settle do not hold a script)
        bool confirmed = false;  // the overlay drawn since measured the insets the camera was fitted into
        OrbitCamera camera;
        glm::vec3 lo{0.0f}, hi{0.0f};
        float bottom = 0, top = 0;
    } framing;
    PickState pick;
    HoverState hover;
    RecordState rec;
    Timing timing;
    EllipseState ellipse;
    int inspectParticle = -1;  // last picked vertex, shown in the inspector and marked in the view
    bool showPlots = true, showEllipse = true;
    PlotSections plotSections;
    int throwRequests = 0;
    int historyWindow = 300;  // frames shown in the time plots
    PanelState panels;        // collapsed or open, as the user left them
    Layout layout;            // this frame's panel widths and 3D view rectangle
    // Pixels of the view's bottom under the status bar and the legends, and of its top under the captions, as
    // last drawn (overlay.cpp): framing fits the scene between them.
    float overlayBottom = 50, overlayTop = 0;  // before the first overlay: the status bar's three lines
    float overlayTopRight =
        0;  // the window's x where the top captions end (a lesson's window goes below them)
    std::string screenshotRequest;  // action: write the window (or view) to this PNG after this frame
    Capture screenshotCapture = Capture::Window;
    std::vector<Mark> marks;  // lesson overlays in the 3D view
    std::string caption;      // lesson caption over the 3D view
    PerFramePlot perFramePlot = PerFramePlot::EnergyG;
    LessonView lesson;
};

inline constexpr int kRecentFrames = 6;

}  // namespace vbdgui

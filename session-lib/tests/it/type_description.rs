//! The type description service between two sessions: a node describes the types its entities
//! use so that the client can hash the description again, and fails with rcl's reasons.

use zshm::msgs::Message;
use zshm::msgs::ServiceType;
use zshm::msgs::example_interfaces::srv::AddTwoInts;
use zshm::msgs::example_interfaces::srv::AddTwoInts_Response;
use zshm::msgs::sensor_msgs::msg::PointCloud2;
use zshm::msgs::type_description_interfaces::srv::{GetTypeDescription, GetTypeDescription_Request};
use zshm::ros::qos::QosProfile;
use zshm::ros::type_description::{BAD_HASH, NOT_IN_USE, description_hash};
use zshm::ros::{Node, NodeOptions, graph};

use crate::lane::DEADLINE;
use crate::session_pair;

fn request(type_name: &str, type_hash: &str) -> GetTypeDescription_Request {
    GetTypeDescription_Request {
        type_name: type_name.into(),
        type_hash: type_hash.into(),
        include_type_sources: true,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_describes_the_types_it_uses_so_that_the_client_hashes_them_back() {
    let (a, b) = session_pair().await;
    let node = Node::new(&a, "described", NodeOptions::default()).await.unwrap();
    let _clouds = node
        .create_subscription::<PointCloud2>("points", QosProfile::default(), |_| {})
        .await
        .unwrap();
    let _server = node
        .create_service::<AddTwoInts>("add_two_ints", |_| AddTwoInts_Response { sum: 0 })
        .await
        .unwrap();
    let asker = Node::new(&b, "asker", NodeOptions::default()).await.unwrap();
    let client = asker
        .create_client::<GetTypeDescription>("/described/get_type_description")
        .await
        .unwrap();
    assert!(
        client.wait_for_service_async(DEADLINE).await,
        "the node offers the service"
    );

    let cloud = client
        .call_async(&request(PointCloud2::TYPE.name, PointCloud2::TYPE.hash), DEADLINE)
        .await
        .unwrap();
    assert!(cloud.successful, "{}", cloud.failure_reason);
    let own = &cloud.type_description.type_description;
    assert_eq!(own.type_name, "sensor_msgs/msg/PointCloud2");
    let names: Vec<&str> = own.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "header",
            "height",
            "width",
            "fields",
            "is_bigendian",
            "point_step",
            "row_step",
            "data",
            "is_dense"
        ]
    );
    let referenced: Vec<&str> = cloud
        .type_description
        .referenced_type_descriptions
        .iter()
        .map(|d| d.type_name.as_str())
        .collect();
    assert_eq!(
        referenced,
        [
            "builtin_interfaces/msg/Time",
            "sensor_msgs/msg/PointField",
            "std_msgs/msg/Header"
        ]
    );
    assert_eq!(description_hash(&cloud.type_description), PointCloud2::TYPE.hash);
    let sources: Vec<(&str, &str)> = cloud
        .type_sources
        .iter()
        .map(|s| (s.type_name.as_str(), s.encoding.as_str()))
        .collect();
    assert_eq!(sources[0], ("sensor_msgs/msg/PointCloud2", "msg"));
    assert_eq!(sources.len(), 4);
    assert!(cloud.type_sources[0].raw_file_contents.contains("uint8[] data"));

    // A service is described by its service type, as rcl records it.
    let service = client
        .call_async(&request(AddTwoInts::TYPE.name, AddTwoInts::TYPE.hash), DEADLINE)
        .await
        .unwrap();
    assert!(service.successful, "{}", service.failure_reason);
    assert_eq!(description_hash(&service.type_description), AddTwoInts::TYPE.hash);
    // The node's own service is one of its types too.
    let own_service = client
        .call_async(
            &request(GetTypeDescription::TYPE.name, GetTypeDescription::TYPE.hash),
            DEADLINE,
        )
        .await
        .unwrap();
    assert!(own_service.successful, "{}", own_service.failure_reason);

    let bad = client
        .call_async(&request(PointCloud2::TYPE.name, "RIHS01_nothex"), DEADLINE)
        .await
        .unwrap();
    assert_eq!((bad.successful, bad.failure_reason.as_str()), (false, BAD_HASH));
    let unused = zshm::msgs::std_msgs::msg::String::TYPE;
    let not_used = client
        .call_async(&request(unused.name, unused.hash), DEADLINE)
        .await
        .unwrap();
    assert_eq!(
        (not_used.successful, not_used.failure_reason.as_str()),
        (false, NOT_IN_USE)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_started_without_the_service_does_not_offer_it() {
    let (a, b) = session_pair().await;
    let options = NodeOptions {
        start_type_description_service: false,
        ..NodeOptions::default()
    };
    let _quiet = Node::new(&a, "quiet", options).await.unwrap();
    let _loud = Node::new(&a, "loud", NodeOptions::default()).await.unwrap();
    // Wait until the other node's service is seen, then the quiet node's absence is meaningful.
    let deadline = std::time::Instant::now() + DEADLINE;
    let services = loop {
        let snapshot = graph::snapshot(&b, 0, std::time::Duration::from_millis(300))
            .await
            .unwrap();
        let names: Vec<String> = snapshot.services().into_iter().map(|s| s.name).collect();
        if names.iter().any(|n| n == "/loud/get_type_description") || std::time::Instant::now() > deadline {
            break names;
        }
    };
    assert!(
        services.iter().any(|n| n == "/loud/get_type_description"),
        "{services:?}"
    );
    assert!(
        !services.iter().any(|n| n == "/quiet/get_type_description"),
        "{services:?}"
    );
}
